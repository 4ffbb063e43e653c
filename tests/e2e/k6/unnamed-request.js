// A request without a templated name tag, sent the way the scripts send every request
// (lib/k6/http.js): refused before it leaves k6, since its URL (query values, barcodes) would be
// its tags. Prints "SENT <status>" when the request went out after all.
import { send } from '../../../lib/k6/http.js';

export const options = { vus: 1, iterations: 1 };

export default function () {
  const res = send('GET', 'http://127.0.0.1:1/users?query=barcode==usr0000042', null, { tags: {} });
  console.log(`SENT ${res.status}`);
}
