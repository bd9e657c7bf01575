package dev.fencedlock.spring.contract;

import dev.fencedlock.testkit.db.TestDatabase.Kind;

class JpaFencingPostgresContractIT extends JpaFencingContract {
    @Override
    protected Kind kind() {
        return Kind.POSTGRESQL;
    }
}
