package dev.fencedlock.jpa;

import dev.fencedlock.testkit.db.TestDatabase;

/** The interleavings of two fenced transactions on H2. */
class H2InterleavingTest extends InterleavingContract {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.H2;
    }
}
