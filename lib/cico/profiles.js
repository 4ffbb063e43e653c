// The check-in/check-out workflow's load profiles (PROFILE), built into k6 scenarios by
// lib/profiles.js. steps: user counts in order; duration: time at each count; think: the
// profile's THINK (lib/think.js).

export const PROFILES = {
  // Does the script work against this target at all? 1 user, no think time: many transactions in a minute.
  smoke: { steps: [1], duration: '1m', gracefulStop: '10s', think: 'none', about: '1 VU for 1 min, no think time' },
  // The report's shape, short enough to watch: 1, 5, 8, 20 users for 1 minute each.
  demo: { steps: [1, 5, 8, 20], duration: '1m', gracefulStop: '15s', think: '500', about: '1, 5, 8, 20 VUs x 1 min, 0.5 s per think timer' },
  // What PTF ran for every release report: 1, 5, 8, 20 users, 30 minutes each, PTF's think times.
  ptf: { steps: [1, 5, 8, 20], duration: '30m', gracefulStop: '60s', think: 'ptf', about: '1, 5, 8, 20 VUs x 30 min, PTF think times' },
  // PTF's longevity test: 20 users for 24 hours (leaks, slow degradation, token refresh).
  longevity: { steps: [20], duration: '24h', gracefulStop: '60s', think: 'ptf', about: '20 VUs for 24 h, PTF think times' },
  // Where does it saturate? Stepped 1 -> 25 users; PTF's first report found a knee near 10 users.
  knee: { steps: [1, 3, 5, 8, 10, 12, 15, 20, 25], duration: '2m', gracefulStop: '15s', think: 'none', about: 'stepped 1 -> 25 VUs x 2 min, no think time' },
  // PTF's Eureka-era reports (Quesnelia and Ramsons on Eureka, Sunflower, Sunflower CSP1/CSP2: PERF-879,
  // PERF-1065, PERF-1109, PERF-1195): 8, 20, 30 and 75 users, 45 minutes each. PTF ramped up 10 s
  // per user (80 to 750 s); here a step starts its users at once and its rows time the whole step.
  'ptf-eureka': { steps: [8, 20, 30, 75], duration: '45m', gracefulStop: '60s', think: 'ptf', about: '8, 20, 30, 75 VUs x 45 min, PTF think times (the Eureka-era reports)' },
  // Their longevity test: 30 users for 10 hours (Keycloak's SSO session maximum on PTF's systems).
  'longevity-eureka': { steps: [30], duration: '10h', gracefulStop: '60s', think: 'ptf', about: '30 VUs for 10 h, PTF think times (the Eureka-era longevity test)' },
};
