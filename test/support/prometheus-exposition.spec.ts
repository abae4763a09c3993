import { Counter, Histogram, Registry } from 'prom-client';
import { Exposition } from './prometheus-exposition';

describe('Exposition (reading a scrape)', () => {
  it('reads counters and labelled histograms series by series, with their types', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'c_total', help: 'c', labelNames: ['a'], registers: [registry] });
    const histogram = new Histogram({
      name: 'h_seconds',
      help: 'h',
      labelNames: ['a'],
      buckets: [1, 5],
      registers: [registry],
    });
    counter.inc({ a: 'x' }, 2);
    counter.inc({ a: 'y' }, 0);
    histogram.observe({ a: 'x' }, 0.5);
    histogram.observe({ a: 'x' }, 3);
    histogram.observe({ a: 'y' }, 7);
    const scrape = new Exposition(await registry.metrics());
    expect(scrape.type('c_total')).toBe('COUNTER');
    expect(scrape.type('h_seconds')).toBe('HISTOGRAM');
    expect(scrape.value('c_total', { a: 'x' })).toBe(2);
    expect(scrape.value('c_total', { a: 'y' })).toBe(0);
    expect(scrape.total('c_total')).toBe(2);
    expect(scrape.histogram('h_seconds', { a: 'x' })).toEqual({ count: 2, sum: 3.5 });
    expect(scrape.histogram('h_seconds', { a: 'y' })).toEqual({ count: 1, sum: 7 });
    expect(scrape.value('h_seconds_bucket', { a: 'x', le: '1' })).toBe(1);
    expect(() => scrape.value('c_total', { a: 'z' })).toThrow(/no series/);
    expect(() => scrape.histogram('c_total')).toThrow(/not a histogram/);
  });
});
