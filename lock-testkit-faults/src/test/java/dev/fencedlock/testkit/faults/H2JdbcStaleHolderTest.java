package dev.fencedlock.testkit.faults;

import dev.fencedlock.testkit.db.TestDatabase;

/** The {@code jdbc} backend and the data on embedded H2. */
class H2JdbcStaleHolderTest extends JdbcStaleHolders {
    H2JdbcStaleHolderTest() {
        super(TestDatabase.Kind.H2);
    }
}
