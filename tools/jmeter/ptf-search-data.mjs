// The data files of PTF's Eureka-era mod-search plan (tools/jmeter/ptf/mod-search/mod-search.jmx,
// perf-testing branch mod-search-script), written from folio-perf's generated query files
// (data/search/, make search-data: PTF's shapes, words minifolio's seed uses), so the plan searches
// what the tenant holds:
//   MSF_*.csv               one query value per line, as the plan's CSV Data Sets read them
//   tenants_credentials.csv username,password,tenant,hostName,origin after a header line (the plan
//                           skips it); readable by its owner only: remove it after the run
//   UsersInfo.csv           empty: the plan's login thread appends the logged-in user to it
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The plan's file <- folio-perf's file (and how a row is rewritten, when the shapes differ).
export const MSF_FILES = Object.freeze([
  ['MSF_auth_queries.csv', 'auth_queries.csv'],
  ['MSF_auth_queries_sentence.csv', 'auth_queries_sentence.csv'],
  ['MSF_bool_queries_word_and_titleall_word.csv', 'bool_queries_and.csv'],
  ['MSF_bool_queries_word_or_titleall_word.csv', 'bool_queries_or.csv'],
  // PTF's "fusion OR aircraft" is folio-perf's "(fusion OR aircraft)" without the brackets.
  ['MSF_bool_queries_subject_word_or_word.csv', 'bool_queries_subjects.csv', (r) => r.replace(/^\((.*)\)$/, '$1')],
  ['MSF_bool_queries_subject_word_not_word.csv', 'bool_queries_not.csv'],
  ['MSF_contributors_queries_word.csv', 'contributors_queries_word.csv'],
  ['MSF_contributors_queries_2_words.csv', 'contributors_queries_2_words.csv'],
  ['MSF_filter_queries_sentence.csv', 'filter_queries_sentence.csv'],
  ['MSF_filter_queries_languages.csv', 'filter_queries_languages.csv'],
  ['MSF_keyword_queries.csv', 'keyword_queries.csv'],
  ['MSF_subject_queries.csv', 'subject_queries.csv'],
  ['MSF_title_queries_sentence3words.csv', 'title_queries_sentence3words.csv'],
]);

/** Writes DIR/jmeter-supported-data/; host: what the plan calls its FOLIO (the harness points it). */
export function writePtfSearchData({ dir, source, tenant, operator, password, host = '127.0.0.1' }) {
  const d = join(dir, 'jmeter-supported-data');
  mkdirSync(d, { recursive: true });
  for (const [to, from, rewrite = (r) => r] of MSF_FILES) {
    let text;
    try {
      text = readFileSync(join(source, from), 'utf8');
    } catch {
      throw new Error(`${join(source, from)} cannot be read; fix: run make search-data`);
    }
    writeFileSync(join(d, to), text.split('\n').filter((l) => l !== '').map(rewrite).join('\n') + '\n');
  }
  writeFileSync(join(d, 'tenants_credentials.csv'), `username,password,tenant,hostName,origin\n${operator},${password},${tenant},${host},${host}\n`, { mode: 0o600 });
  writeFileSync(join(d, 'UsersInfo.csv'), '');
}

export function removeSearchCredentials(dir) {
  rmSync(join(dir, 'jmeter-supported-data', 'tenants_credentials.csv'), { force: true });
}
