package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException;
import org.junit.jupiter.api.Test;

class FenceTableTest {

    @Test
    void acceptsPlainAndSchemaQualifiedTableNames() {
        assertThat(FenceTable.named("fence_2").name()).isEqualTo("fence_2");
        assertThat(FenceTable.named("app.fencedlock_fence").name()).isEqualTo("app.fencedlock_fence");
        assertThat(FenceTable.named(FenceTable.DEFAULT_NAME)).isSameAs(FenceTable.standard());
        assertThat(FenceTable.named("fence_2")).isEqualTo(FenceTable.named("fence_2"));
    }

    @Test
    void refusesTableNamesThatAreNotPlainIdentifiers() {
        for (String bad :
                new String[] {"", " ", "1fence", "fence; drop table x", "a.b.c", "fence name", "\"quoted\""}) {
            assertThatThrownBy(() -> FenceTable.named(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("table")
                    .hasMessageContaining("'" + bad + "'");
        }
        assertThatThrownBy(() -> FenceTable.named(null))
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
