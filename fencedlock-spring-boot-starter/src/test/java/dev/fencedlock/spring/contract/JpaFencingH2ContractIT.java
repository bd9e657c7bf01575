package dev.fencedlock.spring.contract;

import dev.fencedlock.testkit.db.TestDatabase.Kind;

class JpaFencingH2ContractIT extends JpaFencingContract {
    @Override
    protected Kind kind() {
        return Kind.H2;
    }
}
