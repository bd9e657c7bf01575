package dev.fencedlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.internal.RedlockProviderFactory;
import dev.fencedlock.spi.LockProviderFactory;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class RedlockProviderFactoryTest {

    @Test
    void isFoundByTheServiceLoaderUnderItsBackendName() {
        assertThat(ServiceLoader.load(LockProviderFactory.class).stream()
                        .map(ServiceLoader.Provider::get)
                        .filter(factory -> factory.backend().equals("redlock")))
                .singleElement()
                .isInstanceOf(RedlockProviderFactory.class);
    }

    @Test
    void missingNodesAreRejectedNamingTheKey() {
        LockConfig config = LockConfig.builder().backend("redlock").build();
        assertThatThrownBy(() -> LockClient.create(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RedlockSettings.NODES);
    }

    @Test
    void keysOfDifferentKindsNeverCollide() {
        assertThat(RedlockKeys.lockKey("token:x")).isNotEqualTo(RedlockKeys.tokenKey("x"));
        assertThat(RedlockKeys.lockKey("a")).isEqualTo("fencedlock:{a}:lock");
        assertThat(RedlockKeys.tokenKey("a")).isEqualTo("fencedlock:{a}:token");
        assertThat(RedlockKeys.releaseChannel("a")).isEqualTo("fencedlock:{a}:released");
        RedlockKeys keys = RedlockKeys.withPrefix("orders:");
        assertThat(keys.lock("a")).isEqualTo("orders:{a}:lock");
        assertThat(keys.leaseExpiries()).isEqualTo("orders:lease-expiries");
        assertThat(keys.leaseLengths()).isEqualTo("orders:lease-lengths");
        assertThat(keys.lockNameOfReleased(keys.released("a}b:released"))).contains("a}b:released");
        assertThat(keys.lockNameOfReleased(RedlockKeys.releaseChannel("a"))).isEmpty();
    }

    /** Redis Cluster hashes only what is between the first '{' and the next '}': one slot per lock. */
    @Test
    void theKeysOfOneLockShareTheirHashTag() {
        for (String name : List.of("a", "x}y", "{a}", "inventory:{sku-1}")) {
            assertThat(hashTag(RedlockKeys.lockKey(name)))
                    .as(name)
                    .isEqualTo(hashTag(RedlockKeys.tokenKey(name)))
                    .isNotEmpty();
        }
    }

    private static String hashTag(String key) {
        int open = key.indexOf('{');
        int close = key.indexOf('}', open + 1);
        return key.substring(open + 1, close);
    }
}
