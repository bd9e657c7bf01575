package dev.fencedlock.jpa;

/** The fenced-write tests on PostgreSQL (127.0.0.1:5432, database test). */
class PostgreSqlFencedWriteIT extends AbstractFencedWriteIT {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }
}
