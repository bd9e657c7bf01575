package dev.fencedlock.testkit.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
import org.junit.jupiter.api.Test;

class StaleHoldersTest {

    @Test
    void aBackendItCannotReachIsRefusedByName() {
        LockConfig config = LockConfig.builder().backend("consul").build();
        assertThatThrownBy(() -> StaleHolders.forConfig(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.backend=consul")
                .hasMessageContaining("redlock, zookeeper, jdbc and local");
    }

    @Test
    void eachSupportedBackendIsReachedFromItsKeys() {
        assertThat(StaleHolders.forConfig(LockConfig.builder()
                        .backend("redlock")
                        .set("fencedlock.redlock.nodes", "redis://127.0.0.1:1")
                        .build()))
                .hasToString("StaleHolders[redlock]");
        assertThat(StaleHolders.forConfig(LockConfig.builder()
                        .backend("zookeeper")
                        .set("fencedlock.zookeeper.connect", "127.0.0.1:1")
                        .build()))
                .hasToString("StaleHolders[zookeeper]");
        assertThat(StaleHolders.forConfig(LockConfig.builder()
                        .backend("jdbc")
                        .set("fencedlock.jdbc.url", "jdbc:h2:mem:unused")
                        .build()))
                .hasToString("StaleHolders[jdbc]");
        assertThat(StaleHolders.forConfig(LockConfig.builder().backend("local").build()))
                .hasToString("StaleHolders[local]");
    }

    @Test
    void aMissingLeaseIsAnArgumentError() {
        assertThatThrownBy(() -> StaleHolders.local().takeAway(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
    }
}
