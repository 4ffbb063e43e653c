// The CICO sequence's endpoints and the JSON schema each module publishes for its answer, at the
// module versions of each release minifolio's profiles play.
// tools/contract-schemas.mjs copies the schemas from the modules' repositories into schemas/;
// tests/e2e/contract.test.mjs validates minifolio's answers against them. `name` is the request's
// name in lib/cico/api.js (method and templated path); `status` the answer that carries the schema (a
// name may have one schema per status).
// The endpoints and the schema of each, by module; the tags come per release below.
const ENDPOINTS = {
  'mod-login': [{ name: 'POST /authn/login', status: 201, schema: 'ramls/loginResponse.json' }],
  'mod-configuration': [{ name: 'GET /configurations/entries', status: 200, schema: 'ramls/_schemas/kv_configurations.schema' }],
  'mod-users': [
    { name: 'GET /groups', status: 200, schema: 'ramls/usergroups.json' },
    { name: 'GET /users', status: 200, schema: 'ramls/userdataCollection.json' },
    { name: 'GET /proxiesfor', status: 200, schema: 'ramls/proxyforCollection.json' },
  ],
  'mod-feesfines': [
    { name: 'GET /accounts', status: 200, schema: 'ramls/accountdataCollection.json' },
    { name: 'GET /manualblocks', status: 200, schema: 'ramls/manualblockdataCollection.json' },
    { name: 'GET /lost-item-fees-policies', status: 200, schema: 'ramls/lost-item-fee-policies.json' },
  ],
  'mod-circulation': [
    { name: 'GET /circulation/loans', status: 200, schema: 'ramls/loans.json' },
    { name: 'GET /circulation/requests', status: 200, schema: 'ramls/requests.json' },
    { name: 'POST /circulation/check-out-by-barcode', status: 201, schema: 'ramls/loan.json' },
    { name: 'POST /circulation/check-out-by-barcode', status: 422, schema: 'ramls/extended-errors.json' },
    { name: 'POST /circulation/check-in-by-barcode', status: 200, schema: 'ramls/check-in-by-barcode-response.json' },
  ],
  'mod-patron-blocks': [{ name: 'GET /automated-patron-blocks/{id}', status: 200, schema: 'ramls/automated-patron-blocks.json' }],
  'mod-inventory': [{ name: 'GET /inventory/items', status: 200, schema: 'ramls/items.json' }],
  'mod-circulation-storage': [{ name: 'GET /staff-slips-storage/staff-slips', status: 200, schema: 'ramls/staff-slips.json' }],
  'mod-inventory-storage': [{ name: 'GET /service-points', status: 200, schema: 'ramls/servicepoints.json' }],
};

const modules = (tags) => Object.entries(tags).map(([module, tag]) => ({ module, tag, endpoints: ENDPOINTS[module] }));

// One entry per release minifolio's profiles play: the profile that announces those versions
// (minifolio/profiles/*.json moduleVersions, else catalog.DefaultVersions) and each module's tag.
export const CONTRACT_RELEASES = [
  {
    release: 'orchid',
    profile: 'fast', // catalog.DefaultVersions
    modules: modules({
      'mod-login': 'v7.9.0', 'mod-configuration': 'v5.9.1', 'mod-users': 'v19.1.1', 'mod-feesfines': 'v18.2.1',
      'mod-circulation': 'v23.5.6', 'mod-patron-blocks': 'v1.8.0', 'mod-inventory': 'v20.0.6',
      'mod-circulation-storage': 'v16.0.1', 'mod-inventory-storage': 'v26.0.0',
    }),
  },
  {
    release: 'lotus',
    profile: 'lotus',
    modules: modules({
      'mod-login': 'v7.6.0', 'mod-configuration': 'v5.7.6', 'mod-users': 'v18.2.0', 'mod-feesfines': 'v17.1.0',
      'mod-circulation': 'v23.0.1', 'mod-patron-blocks': 'v1.5.0', 'mod-inventory': 'v18.1.4',
      'mod-circulation-storage': 'v14.0.0', 'mod-inventory-storage': 'v23.0.2',
    }),
  },
];

// Endpoints of the sequence without a published JSON schema: mod-notes 5.x is a Spring module whose
// API is described in OpenAPI (YAML), not in ramls/.
// And the calls only the Eureka releases' screens make (lib/cico/releases/sunflower.js,
// trillium.js): the contract runs the Okapi releases above (Orchid's screens), which never send them.
export const CONTRACT_UNCOVERED = [
  'GET /note-links/domain/users/type/user/id/{id}',
  'GET /users/configurations/entry',
  'GET /circulation/settings',
  'GET /user/settings',
  'GET /loan-storage/loans',
];
