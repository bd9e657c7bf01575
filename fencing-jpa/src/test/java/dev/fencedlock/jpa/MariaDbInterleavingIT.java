package dev.fencedlock.jpa;

import dev.fencedlock.testkit.db.TestDatabase;

/** The interleavings of two fenced transactions on MariaDb. */
class MariaDbInterleavingIT extends InterleavingContract {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }
}
