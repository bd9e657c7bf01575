package dev.fencedlock.jpa;

import dev.fencedlock.testkit.db.TestDatabase;

/** The fenced-write tests on H2. */
class H2FencedWriteTest extends FencedWriteContract {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.H2;
    }
}
