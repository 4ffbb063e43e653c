// A user-facing failure of `folio-perf report`/`compare`: one line with the fix, exit 1.
export class ReportError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ReportError';
  }
}
