package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException;
import org.junit.jupiter.api.Test;

class FenceGuardTest {

    @Test
    void acceptsPlainAndSchemaQualifiedTableNames() {
        assertThat(FenceGuard.inTable("fence_2").table()).isEqualTo("fence_2");
        assertThat(FenceGuard.inTable("app.fencedlock_fence").table()).isEqualTo("app.fencedlock_fence");
        assertThat(FenceGuard.inTable(FenceGuard.DEFAULT_TABLE)).isSameAs(FenceGuard.standard());
    }

    @Test
    void refusesTableNamesThatAreNotPlainIdentifiers() {
        for (String bad :
                new String[] {"", " ", "1fence", "fence; drop table x", "a.b.c", "fence name", "\"quoted\""}) {
            assertThatThrownBy(() -> FenceGuard.inTable(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("table")
                    .hasMessageContaining("'" + bad + "'");
        }
        assertThatThrownBy(() -> FenceGuard.inTable(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
    }

    @Test
    void aRefusalNamesTheLockAndBothTokens() {
        FenceRefusedException refusal = new FenceRefusedException(
                FenceRefusedException.Reason.NEWER_TOKEN_REGISTERED, "inventory:sku-42", 33, 34L, null, null);
        assertThat(refusal.getMessage())
                .isEqualTo("Fenced write refused for lock 'inventory:sku-42', token 33 (newer token 34): a later"
                        + " holder of the lock has registered a newer token");
        assertThat(refusal).isInstanceOf(dev.fencedlock.LockException.class);
    }
}
