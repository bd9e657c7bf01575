package dev.fencedlock.spring.contract;

import dev.fencedlock.testkit.db.TestDatabase.Kind;

class SpringPostgresContractIT extends SpringFencingContract {
    @Override
    protected Kind kind() {
        return Kind.POSTGRESQL;
    }
}
