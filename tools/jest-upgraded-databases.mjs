// The jest project `service-upgraded`: its service specs build their databases by the upgrade path
// (libs/testing/src/schema-upgrade.ts, `upgradedDatabases()`).
process.env.TOWNHALL_TEST_DATABASE = 'upgraded';
