// A test double of the Python extension (id ms-python.python) for the kebab e2e test: the real
// one is not in any registry this test may use. It offers the part of its API kebab reads,
// `environments.getActiveEnvironmentPath` and `resolveEnvironment`, and reports as "selected"
// the interpreter path written in the file $KEBAB_E2E_PYTHON_EXT_FILE (none while it is absent).
const fs = require('fs');

function selected() {
  try {
    return fs.readFileSync(process.env.KEBAB_E2E_PYTHON_EXT_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

exports.activate = function activate() {
  return {
    environments: {
      getActiveEnvironmentPath() {
        const p = selected();
        return p ? { id: p, path: p } : undefined;
      },
      async resolveEnvironment(env) {
        const p = typeof env === 'string' ? env : env?.path;
        return p ? { id: p, path: p, executable: { uri: { fsPath: p } } } : undefined;
      },
    },
  };
};
