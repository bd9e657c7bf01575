package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.MonotonicClock;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

/** Configuration checks that need no server. */
class ZooKeeperProviderFactoryTest {

    private static LockConfig.Builder zookeeper() {
        return LockConfig.builder().backend("zookeeper");
    }

    @Test
    void missingConnectStringIsRejectedNamingTheKey() {
        assertThatThrownBy(() -> LockClient.create(zookeeper().build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ZooKeeperSettings.CONNECT);
    }

    @Test
    void malformedConnectStringIsRejectedNamingKeyAndValue() {
        assertThatThrownBy(() -> LockClient.create(zookeeper()
                        .set(ZooKeeperSettings.CONNECT, "zk1:notaport")
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ZooKeeperSettings.CONNECT)
                .hasMessageContaining("zk1:notaport");
    }

    @Test
    void basePathUnderTheReservedTreeIsRejected() {
        assertThatThrownBy(() -> LockClient.create(zookeeper()
                        .set(ZooKeeperSettings.CONNECT, "127.0.0.1:1")
                        .set(ZooKeeperSettings.BASE_PATH, "/zookeeper/locks")
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ZooKeeperSettings.BASE_PATH)
                .hasMessageContaining("/zookeeper/locks");
    }

    @Test
    void basePathWithCharactersZooKeeperRefusesIsRejected() {
        assertThatThrownBy(() -> LockClient.create(zookeeper()
                        .set(ZooKeeperSettings.CONNECT, "127.0.0.1:1")
                        .set(ZooKeeperSettings.BASE_PATH, "/locks/./x")
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ZooKeeperSettings.BASE_PATH)
                .hasMessageContaining("/locks/./x");
    }

    @Test
    void sessionTimeoutBeyondAnIntOfMillisIsRejected() {
        assertThatThrownBy(() -> LockClient.create(zookeeper()
                        .set(ZooKeeperSettings.CONNECT, "127.0.0.1:1")
                        .set(ZooKeeperSettings.SESSION_TIMEOUT, Duration.ofDays(30))
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ZooKeeperSettings.SESSION_TIMEOUT);
    }

    @Test
    void ownedClientGetsTheConfiguredSessionTimeoutAndABoundedConnectionTimeout() {
        LockConfig config = zookeeper()
                .set(ZooKeeperSettings.CONNECT, "127.0.0.1:1")
                .set(ZooKeeperSettings.SESSION_TIMEOUT, Duration.ofSeconds(9))
                .build();
        try (LeaseRuntime runtime = new LeaseRuntime(config, MonotonicClock.SYSTEM);
                ZooKeeperLockProvider provider =
                        (ZooKeeperLockProvider) new ZooKeeperProviderFactory().create(config, runtime)) {
            CuratorFramework curator = provider.curator();
            assertThat(curator.getZookeeperClient().getConnectionTimeoutMs()).isEqualTo(3_000);
            assertThat(curator.getZookeeperClient().getCurrentConnectionString())
                    .isEqualTo("127.0.0.1:1");
        }
        assertThat(ZooKeeperProviderFactory.connectionTimeoutMillis(60_000)).isEqualTo(5_000);
    }

    @Test
    void borrowedClientMustBeStartedAndConfigMustNameThisBackend() {
        try (CuratorFramework curator = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1))) {
            assertThatThrownBy(
                            () -> ZooKeeperSettings.builder().curator(curator).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("curator must be started");
            assertThatThrownBy(() -> ZooKeeperLocks.create(
                            LockConfig.builder().backend(ZooKeeperLocks.BACKEND).build(), curator))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("curator must be started");
            curator.start();
            assertThatThrownBy(() -> ZooKeeperLocks.create(
                            LockConfig.builder().backend("local").build(), curator))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(LockConfig.BACKEND)
                    .hasMessageContaining("local");
        }
    }

    @Test
    void unreachableEnsembleIsUnavailableNotTaken() {
        LockConfig config = zookeeper()
                .set(ZooKeeperSettings.CONNECT, "127.0.0.1:1")
                .set(ZooKeeperSettings.SESSION_TIMEOUT, Duration.ofSeconds(3))
                .build();
        try (LockClient client = LockClient.create(config)) {
            assertThatThrownBy(() -> client.lock("x").tryAcquire(Duration.ZERO))
                    .isInstanceOf(dev.fencedlock.LockUnavailableException.class)
                    .hasMessageContaining("'x'")
                    .hasMessageContaining("127.0.0.1:1");
        }
    }
}
