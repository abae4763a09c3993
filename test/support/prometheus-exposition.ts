import parsePrometheusTextFormat from 'parse-prometheus-text-format';

type Family = ReturnType<typeof parsePrometheusTextFormat>[number];

/**
 * A scrape of the Prometheus text format, parsed by a real parser (parse-prometheus-text-format), with
 * exact-label lookups. That parser folds the series of a labelled histogram into one and loses their
 * labels, so the values are read from a second parse in which histograms are declared untyped: each
 * `_bucket`, `_sum` and `_count` series then stands as a plain sample with its own labels.
 */
export class Exposition {
  private readonly types: Map<string, Family['type']>;
  private readonly families = new Map<string, Family>();

  constructor(text: string) {
    this.types = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family.type]));
    const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
    for (const family of parsePrometheusTextFormat(untyped)) {
      // A histogram's _bucket/_sum/_count lines alternate per series: each run is a family of its own.
      const known = this.families.get(family.name);
      if (known) known.metrics.push(...family.metrics);
      else this.families.set(family.name, { ...family, metrics: [...family.metrics] });
    }
  }

  type(name: string): string | undefined {
    return this.types.get(name);
  }

  /** The series of a family with exactly these labels, or undefined when there is none. */
  private sample(name: string, labels: Record<string, string>) {
    const wanted = Object.entries(labels);
    return this.families.get(name)?.metrics.find((sample) => {
      const have = sample.labels ?? {};
      return (
        Object.keys(have).length === wanted.length && wanted.every(([key, value]) => have[key] === value)
      );
    });
  }

  /** A counter's or gauge's value; throws when the series does not exist (so 0 is never assumed). */
  value(name: string, labels: Record<string, string> = {}): number {
    const sample = this.sample(name, labels);
    if (sample?.value === undefined) throw new Error(`no series ${name}${JSON.stringify(labels)}`);
    return Number(sample.value);
  }

  /** A histogram series' observation count and sum. */
  histogram(name: string, labels: Record<string, string> = {}): { count: number; sum: number } {
    if (this.types.get(name) !== 'HISTOGRAM') throw new Error(`${name} is not a histogram`);
    return { count: this.value(`${name}_count`, labels), sum: this.value(`${name}_sum`, labels) };
  }

  /** The sum of a family's values over every series (counters and gauges). */
  total(name: string): number {
    const family = this.families.get(name);
    if (!family) throw new Error(`no family ${name}`);
    return family.metrics.reduce((sum, sample) => sum + Number(sample.value), 0);
  }

  /** Every series of a family as `labels → value` (counters and gauges). */
  series(name: string): { labels: Record<string, string>; value: number }[] {
    return (this.families.get(name)?.metrics ?? []).map((sample) => ({
      labels: sample.labels ?? {},
      value: Number(sample.value),
    }));
  }
}
