import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';
import { ConfigValidationError, EnvBoolean, validateEnv } from './env-validation';

class SampleEnv {
  @IsInt()
  @Min(1)
  @Max(10)
  SAMPLE_COUNT: number = 3;

  @IsString()
  SAMPLE_NAME: string = 'default';

  @EnvBoolean()
  @IsBoolean()
  SAMPLE_FLAG: boolean = false;
}

describe('validateEnv', () => {
  it('applies defaults for missing and empty variables', () => {
    const env = validateEnv(SampleEnv, { SAMPLE_NAME: '' });
    expect(env).toMatchObject({ SAMPLE_COUNT: 3, SAMPLE_NAME: 'default', SAMPLE_FLAG: false });
  });

  it.each([
    [{ SAMPLE_COUNT: '7' }, { SAMPLE_COUNT: 7 }],
    [{ SAMPLE_FLAG: 'true' }, { SAMPLE_FLAG: true }],
    [{ SAMPLE_FLAG: '0' }, { SAMPLE_FLAG: false }],
  ])('converts %p', (input, expected) => {
    expect(validateEnv(SampleEnv, input)).toMatchObject(expected);
  });

  it.each([
    [{ SAMPLE_COUNT: '0' }, 'SAMPLE_COUNT must not be less than 1'],
    [{ SAMPLE_COUNT: '11' }, 'SAMPLE_COUNT must not be greater than 10'],
    [{ SAMPLE_COUNT: 'many' }, 'SAMPLE_COUNT must be an integer number'],
    [{ SAMPLE_FLAG: 'yes' }, 'SAMPLE_FLAG must be a boolean value'],
  ])('rejects %p naming the key', (input, message) => {
    expect(() => validateEnv(SampleEnv, input)).toThrow(ConfigValidationError);
    expect(() => validateEnv(SampleEnv, input)).toThrow(message);
  });

  it('never echoes the rejected value', () => {
    expect(() => validateEnv(SampleEnv, { SAMPLE_COUNT: 'secret-value-123' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret-value-123') }),
    );
  });
});
