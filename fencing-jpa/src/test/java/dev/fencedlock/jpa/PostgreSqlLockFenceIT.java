package dev.fencedlock.jpa;

/** The fenced-write tests with the lock fence on, on PostgreSQL. */
class PostgreSqlLockFenceIT extends AbstractLockFenceIT {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }
}
