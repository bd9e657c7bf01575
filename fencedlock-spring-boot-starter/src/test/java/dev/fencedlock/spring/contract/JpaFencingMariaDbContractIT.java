package dev.fencedlock.spring.contract;

import dev.fencedlock.testkit.db.TestDatabase.Kind;

class JpaFencingMariaDbContractIT extends JpaFencingContract {
    @Override
    protected Kind kind() {
        return Kind.MARIADB;
    }
}
