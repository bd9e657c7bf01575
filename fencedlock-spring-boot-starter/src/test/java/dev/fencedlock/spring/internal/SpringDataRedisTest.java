package dev.fencedlock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spring.FencedLockAutoConfiguration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.env.MockEnvironment;

/**
 * Which redlock keys Spring Boot's {@code spring.data.redis.*} settings become, and when they are
 * not read (no servers: nothing here connects).
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringDataRedisTest {
    private static final Map<String, String> REDLOCK = Map.of("fencedlock.backend", "redlock");

    private static Binder boot(String... keyValues) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            values.put(keyValues[i], keyValues[i + 1]);
        }
        return new Binder(new MapConfigurationPropertySource(values));
    }

    private static Map<String, String> resolve(Map<String, String> fencedlock, Binder binder) {
        return SpringDataRedis.withBootRedis(new HashMap<>(fencedlock), binder).properties();
    }

    @Test
    void sentinelSettingsWithTheirCredentialsBecomeTheSentinelKeys() {
        Map<String, String> keys = resolve(
                REDLOCK,
                boot(
                        "spring.data.redis.sentinel.master", "orders",
                        "spring.data.redis.sentinel.nodes", "s1:26379, s2:26379",
                        "spring.data.redis.sentinel.username", "watcher",
                        "spring.data.redis.sentinel.password", "p@ss word",
                        "spring.data.redis.username", "app",
                        "spring.data.redis.password", "secret",
                        "spring.data.redis.cluster.nodes", "c1:7000"));
        assertThat(keys)
                .containsEntry("fencedlock.redlock.sentinel.master", "orders")
                .containsEntry(
                        "fencedlock.redlock.sentinel.nodes",
                        "redis://watcher:p%40ss%20word@s1:26379,redis://watcher:p%40ss%20word@s2:26379")
                .containsEntry("fencedlock.redlock.sentinel.master-user", "app")
                .containsEntry("fencedlock.redlock.sentinel.master-password", "secret")
                .as("Sentinel before cluster, as Spring Boot chooses")
                .doesNotContainKey("fencedlock.redlock.cluster.nodes");
        RedlockSettings.Sentinel sentinel = RedlockSettings.from(
                        LockConfig.fromMap(keys).settings("redlock"))
                .sentinel()
                .orElseThrow();
        assertThat(sentinel.master()).isEqualTo("orders");
        assertThat(sentinel.sentinels().get(1).user()).contains("watcher");
        assertThat(sentinel.sentinels().get(1).password())
                .as("the password as the Sentinel must receive it, decoded")
                .contains("p@ss word");
        assertThat(sentinel.masterPassword()).isEqualTo("secret");
    }

    @Test
    void sentinelNodesGivenAsAYamlListArePlainHostPortsWithoutCredentials() {
        Map<String, String> keys = resolve(
                REDLOCK,
                boot(
                        "spring.data.redis.sentinel.master", "orders",
                        "spring.data.redis.sentinel.nodes[0]", "s1:26379",
                        "spring.data.redis.sentinel.nodes[1]", "s2:26380"));
        assertThat(keys)
                .containsEntry("fencedlock.redlock.sentinel.nodes", "s1:26379,s2:26380")
                .doesNotContainKeys(
                        "fencedlock.redlock.sentinel.master-user", "fencedlock.redlock.sentinel.master-password");
    }

    @Test
    void clusterNodesCarryTheDataNodesCredentialsAndTls() {
        assertThat(resolve(REDLOCK, boot("spring.data.redis.cluster.nodes", "c1:7000,c2:7001")))
                .containsEntry("fencedlock.redlock.cluster.nodes", "c1:7000,c2:7001");
        assertThat(resolve(
                        REDLOCK,
                        boot(
                                "spring.data.redis.cluster.nodes", "c1:7000,c2:7001",
                                "spring.data.redis.username", "app",
                                "spring.data.redis.password", "secret",
                                "spring.data.redis.ssl.enabled", "true")))
                .containsEntry(
                        "fencedlock.redlock.cluster.nodes", "rediss://app:secret@c1:7000,rediss://app:secret@c2:7001");
    }

    @Test
    void nothingIsReadForAnotherBackendOrWithoutSentinelOrCluster() {
        Binder cluster = boot("spring.data.redis.cluster.nodes", "c1:7000");
        assertThat(resolve(Map.of("fencedlock.backend", "zookeeper"), cluster))
                .doesNotContainKey("fencedlock.redlock.cluster.nodes");
        assertThat(resolve(Map.of("fencedlock.backend", "jdbc", "fencedlock.fallback", "redlock"), cluster))
                .as("the fallback's keys are read too")
                .containsEntry("fencedlock.redlock.cluster.nodes", "c1:7000");
        assertThat(resolve(REDLOCK, boot("spring.data.redis.host", "r1", "spring.data.redis.port", "6380")))
                .isEqualTo(REDLOCK);
    }

    @Test
    void explicitKeysWinWholeAndADifferenceIsSaidOnceAtInfo(CapturedOutput output) {
        Binder boot = boot(
                "spring.data.redis.sentinel.master", "orders",
                "spring.data.redis.sentinel.nodes", "s1:26379",
                "spring.data.redis.password", "secret");
        Map<String, String> explicit = new HashMap<>(REDLOCK);
        explicit.put("fencedlock.redlock.sentinel.master", "locks");
        assertThat(resolve(explicit, boot))
                .as("the explicit master alone: no Sentinel nodes or password merged in")
                .isEqualTo(explicit);
        assertThat(output.getOut())
                .containsOnlyOnce("fencedlock.redlock uses its own [fencedlock.redlock.sentinel.master];"
                        + " spring.data.redis.sentinel.master and spring.data.redis.sentinel.nodes name other"
                        + " Redis settings and are not used for locks (nothing is merged)")
                .doesNotContain("secret");
    }

    @Test
    void explicitKeysThatSayTheSameAreUsedWithoutALogLine(CapturedOutput output) {
        Map<String, String> explicit = new HashMap<>(REDLOCK);
        explicit.put("fencedlock.redlock.cluster.nodes", "c1:7000, c2:7001");
        assertThat(resolve(explicit, boot("spring.data.redis.cluster.nodes", "c1:7000,c2:7001")))
                .isEqualTo(explicit);
        assertThat(output.getOut()).doesNotContain("fencedlock.redlock uses its own");
    }

    @Test
    void aHalfGivenSentinelFromSpringBootFailsStartUpNamingBothOfItsKeys() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class))
                .withPropertyValues("fencedlock.backend=redlock", "spring.data.redis.sentinel.nodes=s1:26379")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("spring.data.redis.sentinel.nodes is set but"
                                + " spring.data.redis.sentinel.master is not"));
    }

    @Test
    void aMalformedAddressFromSpringBootIsReportedWithWhereItCameFrom() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("fencedlock.backend", "redlock")
                .withProperty("spring.data.redis.cluster.nodes", "127.0.0.1:7000,127.0.0.1:port");
        assertThatThrownBy(() -> SpringLockConfig.from(environment))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.redlock.cluster.nodes")
                .hasMessageContaining("taken from spring.data.redis.cluster.nodes");
    }

    @Test
    void theLockConfigOfAnEnvironmentTakesTheClusterFromSpringBoot() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("fencedlock.backend", "redlock")
                .withProperty("spring.data.redis.cluster.nodes", "127.0.0.1:7000,127.0.0.1:7001");
        LockConfig config = SpringLockConfig.from(environment);
        assertThat(config.settings("redlock").list("fencedlock.redlock.cluster.nodes"))
                .containsExactly("127.0.0.1:7000", "127.0.0.1:7001");
    }
}
