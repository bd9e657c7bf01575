package dev.fencedlock.jpa;

import dev.fencedlock.testkit.db.TestDatabase;

/** The Hibernate canary on H2. */
class H2HibernateHooksCanaryTest extends HibernateHooksCanaryContract {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.H2;
    }
}
