package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.BackendSettings;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link ZooKeeperSettings#builder()}: each option checked as it is set, the whole at build. */
class ZooKeeperSettingsBuilderTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        ZooKeeperSettings settings =
                ZooKeeperSettings.builder().connect("zk1:2181").build();
        assertThat(settings.connect()).contains("zk1:2181");
        assertThat(settings.curator()).isEmpty();
        assertThat(settings.basePath()).isEqualTo("/fencedlock");
        assertThat(settings.sessionTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(settings.operationTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.tokenRetention()).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void theBuilderAndTheKeysGiveTheSameSettings() {
        ZooKeeperSettings typed = ZooKeeperSettings.builder()
                .connect("zk1:2181,zk2:2181/app")
                .basePath("/locks/app")
                .sessionTimeout(Duration.ofSeconds(20))
                .operationTimeout(Duration.ofMillis(300))
                .tokenRetention(Duration.ofHours(2))
                .build();
        ZooKeeperSettings keyed = ZooKeeperSettings.from(BackendSettings.of(
                ZooKeeperLocks.BACKEND,
                Map.of(
                        ZooKeeperSettings.CONNECT, "zk1:2181,zk2:2181/app",
                        ZooKeeperSettings.BASE_PATH, "/locks/app",
                        ZooKeeperSettings.SESSION_TIMEOUT, "20s",
                        ZooKeeperSettings.OPERATION_TIMEOUT, "300ms",
                        ZooKeeperSettings.TOKEN_RETENTION, "2h")));
        assertThat(typed.toString()).isEqualTo(keyed.toString());
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                bad(
                        b -> b.connect(" zk1:2181"),
                        "fencedlock.zookeeper.connect must not be blank or contain whitespace, got ' zk1:2181'"),
                bad(b -> b.connect(null), "fencedlock.zookeeper.connect must not be blank"),
                bad(
                        b -> b.connect("zk1:2181/app,zk2:2181"),
                        "fencedlock.zookeeper.connect has the chroot before the last host"),
                bad(
                        b -> b.basePath("locks"),
                        "fencedlock.zookeeper.base-path must be an absolute znode path like /fencedlock, without a trailing slash, got 'locks'"),
                bad(b -> b.basePath("/zookeeper/x"), "must not be under /zookeeper"),
                bad(
                        b -> b.sessionTimeout(Duration.ZERO),
                        "fencedlock.zookeeper.session-timeout must be positive, got 0s"),
                bad(
                        b -> b.sessionTimeout(Duration.ofDays(30)),
                        "fencedlock.zookeeper.session-timeout must be between 1ms and"),
                bad(
                        b -> b.operationTimeout(Duration.ofSeconds(-1)),
                        "fencedlock.zookeeper.operation-timeout must be positive, got -1s"),
                bad(
                        b -> b.tokenRetention(Duration.ofSeconds(59)),
                        "fencedlock.zookeeper.token-retention must be at least"),
                bad(b -> b.tokenRetention(null), "fencedlock.zookeeper.token-retention must not be null"));
    }

    private static Arguments bad(Consumer<ZooKeeperSettings.Builder> setter, String message) {
        return Arguments.of(setter, message);
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badValues")
    void aBadValueIsRejectedByItsSetterNamingTheKeyAndTheValue(
            Consumer<ZooKeeperSettings.Builder> setter, String message) {
        ZooKeeperSettings.Builder builder = ZooKeeperSettings.builder();
        assertThatThrownBy(() -> setter.accept(builder))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void buildNeedsAConnectStringOrACuratorClientButNotBoth() {
        assertThatThrownBy(() -> ZooKeeperSettings.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ZooKeeperSettings.CONNECT + " is required");
        try (CuratorFramework curator = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1))) {
            curator.start();
            assertThatThrownBy(() -> ZooKeeperSettings.builder()
                            .connect("zk1:2181")
                            .curator(curator)
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not both");
            ZooKeeperSettings settings =
                    ZooKeeperSettings.builder().curator(curator).build();
            assertThat(settings.curator()).containsSame(curator);
            assertThat(settings.connect()).isEmpty();
        }
    }

    @Test
    void buildKeepsTheOperationTimeoutBelowTheSession() {
        assertThatThrownBy(() -> ZooKeeperSettings.builder()
                        .connect("zk1:2181")
                        .sessionTimeout(Duration.ofSeconds(2))
                        .operationTimeout(Duration.ofSeconds(2))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        ZooKeeperSettings.OPERATION_TIMEOUT + " must be below " + ZooKeeperSettings.SESSION_TIMEOUT);
    }

    @Test
    void aClientIsRefusedACommonConfigurationOfAnotherBackend() {
        ZooKeeperSettings settings =
                ZooKeeperSettings.builder().connect("zk1:2181").build();
        assertThatThrownBy(() -> ZooKeeperLocks.create(
                        LockConfig.builder().backend("local").build(), settings))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(LockConfig.BACKEND + " must be 'zookeeper'")
                .hasMessageContaining("'local'");
    }
}
