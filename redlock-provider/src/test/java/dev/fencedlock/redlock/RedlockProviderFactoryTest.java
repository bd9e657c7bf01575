package dev.fencedlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.LockProviderFactory;
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
        assertThat(RedlockKeys.lockKey("a")).isEqualTo("fencedlock:lock:a");
        assertThat(RedlockKeys.tokenKey("a")).isEqualTo("fencedlock:token:a");
        assertThat(RedlockKeys.releaseChannel("a")).isEqualTo("fencedlock:released:a");
    }
}
