package dev.fencedlock.jpa;

import dev.fencedlock.testkit.db.TestDatabase;

/** The Hibernate canary on PostgreSql. */
class PostgreSqlHibernateHooksCanaryIT extends HibernateHooksCanaryContract {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }
}
