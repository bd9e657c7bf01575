package dev.fencedlock.spring.contract;

import dev.fencedlock.testkit.db.TestDatabase.Kind;

class JdbcFencingH2ContractIT extends JdbcFencingContract {
    @Override
    protected Kind kind() {
        return Kind.H2;
    }
}
