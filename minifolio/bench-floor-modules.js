// The paced floor of `make bench-k6` (minifolio/bench-floor.js: the same VUs, rate, request and
// output) with the CICO script's modules evaluated in every VU as well: what each VU holds before
// its first transaction (the library's objects and functions, k6's module records, the native
// modules and their bindings, the SharedArrays' handles) and nothing the iterations add. Its
// memory per VU against the bare floor's is the part of the CICO figure that only dropping code
// from the VUs could remove; the CICO run's own figure above it is what the iterations keep.
// The CICO script's options, setup and teardown are not used: only its evaluation is wanted, so
// bench-k6 gives this run the CICO run's environment (the script reads it in init) beside the
// floor's own.

import '../scripts/check-in-check-out.js';

export { options, default } from './bench-floor.js';
