package dev.fencedlock.jpa;

import dev.fencedlock.testkit.db.TestDatabase;

/** The fenced-write tests on MariaDb. */
class MariaDbFencedWriteIT extends FencedWriteContract {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }
}
