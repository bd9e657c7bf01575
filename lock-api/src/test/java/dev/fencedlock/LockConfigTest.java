package dev.fencedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.spi.AcmeProviderFactory;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The common keys, and how a backend's keys reach its provider. The test classpath carries a third
 * backend, {@code acme} ({@link AcmeProviderFactory}), besides {@code local}; the redlock and
 * zookeeper keys are tested in their modules.
 */
class LockConfigTest {

    private static LockConfig fromMap(String... keyValues) {
        Properties properties = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return LockConfig.fromProperties(properties);
    }

    @Test
    void readsTheCommonKeysAndHandsABackendItsOwn() {
        LockConfig config = fromMap(
                "fencedlock.backend", "acme",
                "fencedlock.fallback", "local",
                "fencedlock.fallback-takeover", " immediate ",
                "fencedlock.lease-time", "10s",
                "fencedlock.max-hold-time", "2m",
                "fencedlock.acme.url", "acme://user:hunter2@host:1",
                "fencedlock.acme.timeout", "75ms",
                "unrelated.key", "ignored");
        assertThat(config.backend()).isEqualTo("acme");
        assertThat(config.fallback()).contains("local");
        assertThat(config.fallbackTakeover()).isEqualTo(LockConfig.FallbackTakeover.IMMEDIATE);
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.maxHoldTime()).contains(Duration.ofMinutes(2));
        assertThat(config.settings("acme").values())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("fencedlock.acme.url", "acme://user:hunter2@host:1", "fencedlock.acme.timeout", "75ms"));
        assertThat(config.settings("acme").positiveDuration(AcmeProviderFactory.TIMEOUT))
                .contains(Duration.ofMillis(75));
        assertThat(config.settings("local").values()).isEmpty();
        assertThat(config.toString())
                .doesNotContain("hunter2")
                .contains("acme://user:****@host:1", "fallbackTakeover=immediate");
        assertThat(LockConfig.fromMap(config.values()).fallbackTakeover())
                .isEqualTo(LockConfig.FallbackTakeover.IMMEDIATE);
        assertThat(config.toBuilder().build().fallbackTakeover()).isEqualTo(LockConfig.FallbackTakeover.IMMEDIATE);
    }

    @Test
    void defaultsMatchTheDocumentedTable() {
        LockConfig config = LockConfig.builder().backend("local").build();
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.maxHoldTime()).isEmpty();
        assertThat(config.fallback()).isEmpty();
        assertThat(config.fallbackTakeover()).isEqualTo(LockConfig.FallbackTakeover.WAIT_OUT);
        assertThat(config.values()).containsEntry(LockConfig.FALLBACK_TAKEOVER, "wait-out");
    }

    @Test
    void theBuilderSetsEveryKeyAndCopiesThemAll() {
        LockConfig config = LockConfig.builder()
                .backend("acme")
                .set("fencedlock.lease-time", "12s")
                .set(AcmeProviderFactory.TIMEOUT, Duration.ofMillis(1500))
                .set(AcmeProviderFactory.URL, List.of("acme://a", "acme://b"))
                .build();
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(12));
        assertThat(config.settings("acme").positiveDuration(AcmeProviderFactory.TIMEOUT))
                .contains(Duration.ofMillis(1500));
        assertThat(config.settings("acme").list(AcmeProviderFactory.URL)).containsExactly("acme://a", "acme://b");

        LockConfig copy = config.toBuilder().backend("local").build();
        assertThat(copy.values()).containsAllEntriesOf(Map.of(AcmeProviderFactory.URL, "acme://a,acme://b"));
        assertThat(LockConfig.fromMap(config.values()).values()).isEqualTo(config.values());
    }

    @Test
    void missingBackendListsTheBackendsOnTheClasspath() {
        assertThatThrownBy(() -> fromMap("fencedlock.lease-time", "5s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.backend is required")
                .hasMessageContaining("[acme, local]");
    }

    @Test
    void unknownBackendListsTheBackendsOnTheClasspath() {
        LockConfig config = fromMap("fencedlock.backend", "etcd");
        assertThatThrownBy(() -> LockClient.create(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.backend 'etcd'")
                .hasMessageContaining("[acme, local]");
    }

    @Test
    void blankBackendIsRejected() {
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "  "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.backend must not be blank");
    }

    @Test
    void unknownCommonKeyIsReportedWithTheKnownKeys() {
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "local", "fencedlock.lease-tme", "5s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'fencedlock.lease-tme'")
                .hasMessageContaining("did you mean 'fencedlock.lease-time'?")
                .hasMessageContaining("fencedlock.acme.timeout");
    }

    @Test
    void unknownKeyOfAnInstalledBackendIsReportedWithTheKnownKeys() {
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "acme", "fencedlock.acme.timout", "5s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'fencedlock.acme.timout'")
                .hasMessageContaining("did you mean 'fencedlock.acme.timeout'?");
    }

    @Test
    void keyOfABackendThatIsNotInstalledIsReported() {
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "local", "fencedlock.acm.url", "acme://a"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'fencedlock.acm.url'")
                .hasMessageContaining("backends on the classpath: [acme, local]");
    }

    @Test
    void theProviderChecksItsValuesWhenTheyAreSet() {
        assertThatThrownBy(() -> LockConfig.builder().set(AcmeProviderFactory.URL, "http://user:hunter2@x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.acme.url must start with acme://")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "local", AcmeProviderFactory.TIMEOUT, "0s"))
                .hasMessageContaining("fencedlock.acme.timeout must be positive, got 0s");
    }

    @Test
    void aBackendsRequiredKeysAreCheckedWhenTheClientStarts() {
        LockConfig config = fromMap("fencedlock.backend", "acme");
        assertThatThrownBy(() -> LockClient.create(config)).hasMessageContaining("fencedlock.acme.url is required");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "fencedlock.lease-time|0s|fencedlock.lease-time must be positive, got 0s",
                "fencedlock.lease-time|-5s|fencedlock.lease-time has '-5s', which is not a duration",
                "fencedlock.lease-time|30|fencedlock.lease-time has '30', which is not a duration",
                "fencedlock.lease-time|soon|fencedlock.lease-time has 'soon'",
                "fencedlock.lease-time|PT0S|fencedlock.lease-time must be positive, got 0s",
                "fencedlock.lease-time|PT-3S|fencedlock.lease-time must be positive, got -3s",
                "fencedlock.max-hold-time|0ms|fencedlock.max-hold-time must be positive, got 0s",
                "fencedlock.max-hold-time|1000000d|fencedlock.max-hold-time has '1000000d', longer than the longest",
                "fencedlock.lease-time|999999999999d|fencedlock.lease-time has '999999999999d', longer than",
                "fencedlock.max-hold-time|PT2562047H|fencedlock.max-hold-time has 'PT2562047H', longer than",
                "fencedlock.fallback|zoo keeper|fencedlock.fallback has 'zoo keeper', which is not a backend name",
                "fencedlock.fallback|local|fencedlock.fallback 'local' is the same as fencedlock.backend",
                "fencedlock.fallback-takeover|at-once|fencedlock.fallback-takeover has 'at-once'; expected wait-out",
                "fencedlock.fallback-takeover|WAIT_OUT|fencedlock.fallback-takeover has 'WAIT_OUT'",
            })
    void badValueNamesTheKeyAndTheValue(String key, String value, String expectedMessage) {
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "local", key, value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(expectedMessage)
                .hasMessageContaining(key);
    }

    @Test
    void anOverlongHoldCapIsRefusedInsteadOfKillingTheRenewalTask() {
        assertThatThrownBy(() -> LockConfig.builder().maxHoldTime(Duration.ofDays(1_000_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.max-hold-time");
        Duration longest = Duration.ofDays(26_000);
        assertThat(LockConfig.builder()
                        .backend("local")
                        .maxHoldTime(longest)
                        .build()
                        .maxHoldTime())
                .contains(longest);
    }

    @Test
    void aHoldCapShorterThanTheLeaseTimeIsRejectedNamingBoth() {
        assertThatThrownBy(() -> fromMap(
                        "fencedlock.backend", "local",
                        "fencedlock.lease-time", "3s",
                        "fencedlock.max-hold-time", "1s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.max-hold-time (1s) is shorter than fencedlock.lease-time (3s)");
        assertThatThrownBy(() -> LockConfig.builder()
                        .backend("local")
                        .maxHoldTime(Duration.ofSeconds(10))
                        .build())
                .as("against the default lease time")
                .hasMessageContaining("fencedlock.lease-time (30s)");
        assertThat(fromMap(
                                "fencedlock.backend", "local",
                                "fencedlock.lease-time", "3s",
                                "fencedlock.max-hold-time", "3s")
                        .maxHoldTime())
                .as("a cap of exactly one lease time: the lease is not renewed")
                .contains(Duration.ofSeconds(3));
    }

    @Test
    void builderRejectsBadValuesNamingTheKey() {
        LockConfig.Builder builder = LockConfig.builder();
        assertThatThrownBy(() -> builder.leaseTime(Duration.ZERO)).hasMessageContaining("fencedlock.lease-time");
        assertThatThrownBy(() -> builder.leaseTime(null)).hasMessageContaining("fencedlock.lease-time");
        assertThatThrownBy(() -> builder.set("fencedlock.acme.timeout", (String) null))
                .hasMessageContaining("fencedlock.acme.timeout");
        assertThatThrownBy(() -> builder.set("spring.lease-time", "5s")).hasMessageContaining("spring.lease-time");
        assertThatThrownBy(builder::build).hasMessageContaining("fencedlock.backend is required");
    }

    @Test
    void durationsAcceptEveryDocumentedUnit() {
        assertThat(fromMap("fencedlock.backend", "local", "fencedlock.lease-time", "500ms")
                        .leaseTime())
                .isEqualTo(Duration.ofMillis(500));
        assertThat(fromMap("fencedlock.backend", "local", "fencedlock.lease-time", "2m")
                        .leaseTime())
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(fromMap("fencedlock.backend", "local", "fencedlock.lease-time", "1h")
                        .leaseTime())
                .isEqualTo(Duration.ofHours(1));
        assertThat(fromMap("fencedlock.backend", "local", "fencedlock.lease-time", "PT45S")
                        .leaseTime())
                .isEqualTo(Duration.ofSeconds(45));
    }

    @Test
    void trailingSpacesInAPropertiesFileDoNotReachTheValues() throws Exception {
        Properties file = new Properties();
        file.load(new StringReader(
                "fencedlock.backend = acme  \nfencedlock.acme.path=/app  \nfencedlock.lease-time=5s \t\n"));
        assertThat(file.getProperty("fencedlock.acme.path")).isEqualTo("/app  ");
        LockConfig config = LockConfig.fromProperties(file);
        assertThat(config.backend()).isEqualTo("acme");
        assertThat(config.settings("acme").get(AcmeProviderFactory.PATH)).contains("/app");
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void environmentVariableNamesFollowTheKeys() {
        assertThat(LockConfig.environmentVariable("fencedlock.redlock.node-timeout"))
                .isEqualTo("FENCEDLOCK_REDLOCK_NODE_TIMEOUT");
        assertThat(LockConfig.fromMap(Map.of("fencedlock.backend", "LOCAL")).backend())
                .isEqualTo("local");
        assertThat(LockConfig.keys())
                .startsWith(LockConfig.COMMON_KEYS.toArray(String[]::new))
                .contains(AcmeProviderFactory.URL);
    }
}
