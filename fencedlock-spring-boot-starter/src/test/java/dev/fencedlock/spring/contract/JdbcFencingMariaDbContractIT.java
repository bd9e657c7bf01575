package dev.fencedlock.spring.contract;

import dev.fencedlock.testkit.db.TestDatabase.Kind;

class JdbcFencingMariaDbContractIT extends JdbcFencingContract {
    @Override
    protected Kind kind() {
        return Kind.MARIADB;
    }
}
