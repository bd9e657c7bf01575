package dev.fencedlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.BackendSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link RedlockSettings#builder()}: each option checked as it is set, the whole at build. */
class RedlockSettingsBuilderTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        RedlockSettings settings =
                RedlockSettings.builder().nodes("redis://a:6379").build();
        assertThat(settings.nodeTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(settings.driftFactor()).isEqualTo(0.01);
        assertThat(settings.retryDelay()).isEqualTo(Duration.ofMillis(200));
        assertThat(settings.restartQuarantine()).isEmpty();
        assertThat(settings.trustPersistentNodes()).isFalse();
        assertThat(settings.keys().prefix()).isEqualTo(RedlockKeys.DEFAULT_PREFIX);
        assertThat(settings.waitReplicas()).isZero();
        assertThat(settings.waitReplicasTimeout()).isEqualTo(Duration.ofMillis(25));
        assertThat(settings.sentinel()).isEmpty();
        assertThat(settings.clusterNodes()).isEmpty();
    }

    @Test
    void theBuilderAndTheKeysGiveTheSameSettings() {
        RedlockSettings typed = RedlockSettings.builder()
                .nodes("redis://a:6379", "rediss://u:secret@b:6380/2")
                .nodeTimeout(Duration.ofMillis(75))
                .driftFactor(0.02)
                .retryDelay(Duration.ofMillis(150))
                .restartQuarantine(Duration.ofMinutes(1))
                .persistentNodes(true)
                .keyPrefix("orders:")
                .waitReplicas(1)
                .waitReplicasTimeout(Duration.ofMillis(30))
                .build();
        RedlockSettings keyed = RedlockSettings.from(BackendSettings.of(
                RedlockLocks.BACKEND,
                Map.of(
                        RedlockSettings.NODES, "redis://a:6379,rediss://u:secret@b:6380/2",
                        RedlockSettings.NODE_TIMEOUT, "75ms",
                        RedlockSettings.DRIFT_FACTOR, "0.02",
                        RedlockSettings.RETRY_DELAY, "150ms",
                        RedlockSettings.RESTART_QUARANTINE, "1m",
                        RedlockSettings.PERSISTENT_NODES, "true",
                        RedlockSettings.KEY_PREFIX, "orders:",
                        RedlockSettings.WAIT_REPLICAS, "1",
                        RedlockSettings.WAIT_REPLICAS_TIMEOUT, "30ms")));
        assertThat(typed.toString()).isEqualTo(keyed.toString()).doesNotContain("secret");
        assertThat(typed.nodes()).isEqualTo(keyed.nodes());
    }

    @Test
    void theNodeListIsCopied() {
        List<String> uris = new ArrayList<>(List.of("redis://a:6379"));
        RedlockSettings.Builder builder = RedlockSettings.builder().nodes(uris);
        uris.add("redis://b:6379");
        assertThat(builder.build().nodes()).hasSize(1);
        assertThatThrownBy(() -> builder.build().nodes().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                bad(b -> b.nodeTimeout(Duration.ZERO), "fencedlock.redlock.node-timeout must be positive, got 0s"),
                bad(b -> b.nodeTimeout(null), "fencedlock.redlock.node-timeout must not be null"),
                bad(
                        b -> b.retryDelay(Duration.ofMillis(-5)),
                        "fencedlock.redlock.retry-delay must be positive, got -5ms"),
                bad(b -> b.driftFactor(0.5), "fencedlock.redlock.drift-factor must be in [0, 0.5), got 0.5"),
                bad(b -> b.driftFactor(Double.NaN), "fencedlock.redlock.drift-factor must be in [0, 0.5), got NaN"),
                bad(
                        b -> b.restartQuarantine(Duration.ofSeconds(-1)),
                        "fencedlock.redlock.restart-quarantine must be 0s (off) or positive, got -1s"),
                bad(b -> b.keyPrefix("my app:"), "fencedlock.redlock.key-prefix has 'my app:'"),
                bad(b -> b.waitReplicas(-1), "fencedlock.redlock.wait-replicas has '-1'"),
                bad(
                        b -> b.waitReplicasTimeout(Duration.ZERO),
                        "fencedlock.redlock.wait-replicas-timeout must be positive"),
                bad(b -> b.nodes("http://a:6379"), "fencedlock.redlock.nodes node URI 'http://a:6379'"),
                bad(b -> b.nodes("redis://a:1", "redis://A:1"), "fencedlock.redlock.nodes lists A:1 twice"),
                bad(b -> b.nodes("redis://app:hunter2@host:99999"), "redis://app:****@host:99999"),
                bad(b -> b.sentinelMaster(" "), "fencedlock.redlock.sentinel.master is empty"),
                bad(
                        b -> b.sentinelNodes("a:26379", "a:26379"),
                        "fencedlock.redlock.sentinel.nodes lists a:26379 twice"),
                bad(b -> b.sentinelMasterUser(""), "fencedlock.redlock.sentinel.master-user must not be blank"),
                bad(b -> b.clusterNodes("redis://c:7000/1"), "fencedlock.redlock.cluster.nodes entry"));
    }

    private static Arguments bad(Consumer<RedlockSettings.Builder> setter, String message) {
        return Arguments.of(setter, message);
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badValues")
    void aBadValueIsRejectedByItsSetterNamingTheKeyAndTheValue(
            Consumer<RedlockSettings.Builder> setter, String message) {
        RedlockSettings.Builder builder = RedlockSettings.builder();
        assertThatThrownBy(() -> setter.accept(builder))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message)
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void buildRequiresExactlyOneMode() {
        assertThatThrownBy(() -> RedlockSettings.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RedlockSettings.NODES + " is required");
        assertThatThrownBy(() -> RedlockSettings.builder()
                        .nodes("redis://a:6379")
                        .clusterNodes("c:7000")
                        .build())
                .hasMessageContaining(
                        RedlockSettings.CLUSTER_NODES + " and " + RedlockSettings.NODES + " are both set");
        assertThatThrownBy(() -> RedlockSettings.builder()
                        .nodes("redis://a:6379")
                        .sentinelMaster("orders")
                        .sentinelNodes("s:26379")
                        .build())
                .hasMessageContaining(
                        RedlockSettings.NODES + " and " + RedlockSettings.SENTINEL_MASTER + " are both set");
    }

    @Test
    void buildChecksHowTheOptionsGoTogether() {
        assertThatThrownBy(
                        () -> RedlockSettings.builder().sentinelMaster("orders").build())
                .hasMessageContaining(RedlockSettings.SENTINEL_NODES + " is not");
        assertThatThrownBy(() -> RedlockSettings.builder()
                        .sentinelMaster("orders")
                        .sentinelNodes("s:26379")
                        .sentinelMasterUser("app")
                        .build())
                .hasMessageContaining(RedlockSettings.SENTINEL_MASTER_PASSWORD + " is not");
        assertThatThrownBy(() -> RedlockSettings.builder()
                        .clusterNodes("c:7000")
                        .restartQuarantine(Duration.ofSeconds(30))
                        .build())
                .hasMessageContaining(
                        RedlockSettings.RESTART_QUARANTINE + " is '30s' but " + RedlockSettings.CLUSTER_NODES);
        assertThatThrownBy(() -> RedlockSettings.builder()
                        .nodes("redis://a:6379")
                        .waitReplicas(1)
                        .waitReplicasTimeout(Duration.ofMillis(50))
                        .build())
                .hasMessageContaining(RedlockSettings.WAIT_REPLICAS_TIMEOUT + " 50ms must be shorter than "
                        + RedlockSettings.NODE_TIMEOUT + " 50ms");
    }

    @Test
    void sentinelModeIsBuiltWithTheDataNodesCredentials() {
        RedlockSettings settings = RedlockSettings.builder()
                .sentinelMaster("orders")
                .sentinelNodes("10.0.0.1:26379", "10.0.0.2:26380")
                .sentinelMasterUser("app")
                .sentinelMasterPassword("s3cret")
                .build();
        RedlockSettings.Sentinel sentinel = settings.sentinel().orElseThrow();
        assertThat(sentinel.master()).isEqualTo("orders");
        assertThat(sentinel.sentinels()).extracting(RedisNodeAddress::port).containsExactly(26379, 26380);
        assertThat(sentinel.dataNode("10.0.0.9", 6390).password()).contains("s3cret");
        assertThat(settings.toString()).doesNotContain("s3cret");
    }

    @Test
    void aClientIsRefusedACommonConfigurationOfAnotherBackend() {
        RedlockSettings settings =
                RedlockSettings.builder().nodes("redis://a:6379").build();
        assertThatThrownBy(() -> RedlockLocks.create(
                        LockConfig.builder().backend("local").build(), settings))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(LockConfig.BACKEND + " must be 'redlock'")
                .hasMessageContaining("'local'");
    }
}
