package dev.fencedlock.spring.contract;

import dev.fencedlock.testkit.db.TestDatabase.Kind;

class SpringMariaDbContractIT extends SpringFencingContract {
    @Override
    protected Kind kind() {
        return Kind.MARIADB;
    }
}
