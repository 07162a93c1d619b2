// The tally both interop scripts keep: each check passes or prints why it
// failed, and the script ends with the counts and a non-zero exit on any
// failure.
export function tally(name) {
  let failed = 0;
  let passed = 0;
  return {
    check(what, ok, detail) {
      if (ok) {
        passed++;
      } else {
        failed++;
        console.error(`FAIL ${what}${detail ? ': ' + detail : ''}`);
      }
    },
    fail(what, err) {
      failed++;
      console.error(`FAIL ${what}:`, err);
    },
    finish() {
      console.log(`${name}: ${passed} passed, ${failed} failed`);
      process.exit(failed === 0 ? 0 : 1);
    },
  };
}
