/// The launchers and generators the benchmarks use too: a test that imports MediaNodeTesting has them.
@_exported import MediaNodeFixtures
