package dev.fencedlock.jpa;

import dev.fencedlock.testkit.db.TestDatabase;

/** The Hibernate canary on H2. */
class H2HibernateHooksCanaryIT extends AbstractHibernateHooksCanaryIT {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.H2;
    }
}
