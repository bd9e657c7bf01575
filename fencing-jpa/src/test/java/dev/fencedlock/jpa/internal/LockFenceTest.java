package dev.fencedlock.jpa.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.jpa.FencingSettings;
import java.util.HashMap;
import java.util.Map;
import org.hibernate.dialect.H2Dialect;
import org.junit.jupiter.api.Test;

/** Reading the lock-fence settings. */
class LockFenceTest {
    private static final H2Dialect DIALECT = new H2Dialect();

    @Test
    void isOffUnlessSwitchedOn() {
        assertThat(LockFence.of(Map.of(), DIALECT).isOn()).isFalse();
        assertThat(LockFence.of(Map.of(FencingSettings.LOCK_FENCE, false), DIALECT)
                        .isOn())
                .isFalse();
        assertThat(LockFence.of(Map.of(FencingSettings.LOCK_FENCE, " FALSE "), DIALECT)
                        .isOn())
                .isFalse();
    }

    @Test
    void switchedOnItUsesTheDefaultTableOrTheConfiguredOne() {
        LockFence fence = LockFence.of(Map.of(FencingSettings.LOCK_FENCE, true), DIALECT);
        assertThat(fence.isOn()).isTrue();
        assertThat(fence.table()).isEqualTo("fencedlock_fence");
        Map<String, Object> settings = new HashMap<>();
        settings.put(FencingSettings.LOCK_FENCE, "True");
        settings.put(FencingSettings.LOCK_FENCE_TABLE, " locks.fence_rows ");
        assertThat(LockFence.of(settings, DIALECT).table()).isEqualTo("locks.fence_rows");
    }

    @Test
    void badValuesAreRefusedNamingTheKeyAndTheValue() {
        assertThatThrownBy(() -> LockFence.of(Map.of(FencingSettings.LOCK_FENCE, "on"), DIALECT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fencedlock.jpa.lock-fence must be true or false, got 'on'");
        for (String table : new String[] {"", "fence rows", "a.b.c", "fence;drop", "1fence"}) {
            assertThatThrownBy(() -> LockFence.of(
                            Map.of(FencingSettings.LOCK_FENCE, true, FencingSettings.LOCK_FENCE_TABLE, table), DIALECT))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("fencedlock.jpa.lock-fence-table must be a table name")
                    .hasMessageEndingWith("got '" + table + "'");
        }
    }

    @Test
    void theTableIsNotReadWhenTheFenceIsOff() {
        assertThat(LockFence.of(Map.of(FencingSettings.LOCK_FENCE_TABLE, "not a table"), DIALECT)
                        .isOn())
                .isFalse();
    }
}
