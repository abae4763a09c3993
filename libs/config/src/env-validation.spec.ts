import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';
import { describeEnvClass } from './env-reference';
import { ConfigValidationError, EnvBoolean, EnvSection, envSections, validateEnv } from './env-validation';

@EnvSection('sample', 'Sample')
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

class UndeclaredEnv {
  @IsInt() UNDECLARED_COUNT: number = 1;
}

describe('validateEnv', () => {
  it('refuses a class not declared with @EnvSection (the configuration reference would miss it)', () => {
    expect(() => validateEnv(UndeclaredEnv, {})).toThrow('UndeclaredEnv is not declared with @EnvSection');
  });

  it('lists declared classes with their lib and section', () => {
    expect(envSections()).toContainEqual({
      envClass: SampleEnv,
      section: { lib: 'sample', title: 'Sample' },
    });
  });

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

describe('describeEnvClass', () => {
  it('reads type, default and the start-up messages as rules from the class itself', () => {
    expect(describeEnvClass(SampleEnv)).toEqual([
      {
        key: 'SAMPLE_COUNT',
        type: 'number',
        defaultValue: 3,
        optional: false,
        rules: ['must be an integer number', 'must not be less than 1', 'must not be greater than 10'],
      },
      {
        key: 'SAMPLE_NAME',
        type: 'string',
        defaultValue: 'default',
        optional: false,
        rules: ['must be a string'],
      },
      {
        key: 'SAMPLE_FLAG',
        type: 'boolean',
        defaultValue: false,
        optional: false,
        rules: ['must be a boolean value'],
      },
    ]);
  });
});
