package dev.fencedlock.jpa;

import dev.fencedlock.testkit.db.TestDatabase;

/** The fenced-write tests on PostgreSql. */
class PostgreSqlFencedWriteIT extends FencedWriteContract {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }
}
