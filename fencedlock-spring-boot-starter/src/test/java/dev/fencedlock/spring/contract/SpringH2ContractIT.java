package dev.fencedlock.spring.contract;

import dev.fencedlock.testkit.db.TestDatabase.Kind;

class SpringH2ContractIT extends SpringFencingContract {
    @Override
    protected Kind kind() {
        return Kind.H2;
    }
}
