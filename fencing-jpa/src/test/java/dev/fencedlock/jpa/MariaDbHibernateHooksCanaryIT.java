package dev.fencedlock.jpa;

import dev.fencedlock.testkit.db.TestDatabase;

/** The Hibernate canary on MariaDb. */
class MariaDbHibernateHooksCanaryIT extends HibernateHooksCanaryContract {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }
}
