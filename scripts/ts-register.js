// Runs the TypeScript sources without a build (the docs generator, which lint runs before `npm run build`):
// each .ts file is transpiled on require with the project's compiler options, and `@app/<lib>` resolves
// through tsconfig.json's paths. No type check here; `tsc` in `npm run lint` does that.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const { config } = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root);
const compilerOptions = {
  ...options,
  module: ts.ModuleKind.CommonJS,
  sourceMap: false,
  inlineSourceMap: false,
};
const aliases = Object.entries(options.paths ?? {}).map(([pattern, [target]]) => ({
  prefix: pattern.replace(/\*$/, ''),
  wildcard: pattern.endsWith('*'),
  target: path.join(root, target.replace(/\*$/, '')),
}));

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  for (const alias of aliases) {
    if (alias.wildcard ? request.startsWith(alias.prefix) : request === alias.prefix) {
      const mapped = alias.wildcard ? alias.target + request.slice(alias.prefix.length) : alias.target;
      return resolveFilename.call(this, mapped, ...rest);
    }
  }
  return resolveFilename.call(this, request, ...rest);
};

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
