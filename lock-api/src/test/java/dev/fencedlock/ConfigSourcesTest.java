package dev.fencedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.spi.AcmeProviderFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Precedence: system properties over environment over the classpath file (test resources). */
class ConfigSourcesTest {

    private static LockConfig merged(Properties system, Map<String, String> environment) {
        return LockConfig.fromMap(
                ConfigSources.merge(system, environment, ConfigSourcesTest.class.getClassLoader(), LockConfig.keys()));
    }

    @Test
    void classpathFileAloneIsEnough() {
        LockConfig config = merged(new Properties(), Map.of());
        assertThat(config.backend()).isEqualTo("local");
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(11));
        assertThat(config.settings("acme").positiveDuration(AcmeProviderFactory.TIMEOUT))
                .contains(Duration.ofMillis(111));
    }

    @Test
    void environmentOverridesTheClasspathFile() {
        LockConfig config = merged(new Properties(), Map.of("FENCEDLOCK_LEASE_TIME", "22s", "PATH", "/bin"));
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(22));
        assertThat(config.settings("acme").positiveDuration(AcmeProviderFactory.TIMEOUT))
                .contains(Duration.ofMillis(111));
    }

    @Test
    void systemPropertiesOverrideTheEnvironment() {
        Properties system = new Properties();
        system.setProperty("fencedlock.lease-time", "33s");
        system.setProperty("java.version", "17");
        LockConfig config = merged(system, Map.of("FENCEDLOCK_LEASE_TIME", "22s"));
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(33));
        assertThat(config.backend()).isEqualTo("local");
    }

    @Test
    void aBackendsKeyComesFromTheEnvironmentToo() {
        LockConfig config = merged(new Properties(), Map.of("FENCEDLOCK_ACME_URL", "acme://env"));
        assertThat(config.settings("acme").get(AcmeProviderFactory.URL)).contains("acme://env");
    }

    @Test
    void aMisspeltEnvironmentVariableIsAnErrorNotAQuietDefault() {
        assertThatThrownBy(() -> merged(new Properties(), Map.of("FENCEDLOCK_LEASE_TMIE", "5s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown configuration key 'FENCEDLOCK_LEASE_TMIE' (environment variable)")
                .hasMessageContaining("did you mean 'FENCEDLOCK_LEASE_TIME' (fencedlock.lease-time)?");
        assertThatThrownBy(() -> merged(new Properties(), Map.of("FENCEDLOCK_ACME_TIMOUT", "5s")))
                .hasMessageContaining("'FENCEDLOCK_ACME_TIMOUT' (environment variable)")
                .hasMessageContaining("did you mean 'FENCEDLOCK_ACME_TIMEOUT' (fencedlock.acme.timeout)?");
        // every name under a backend's prefix is the backend's, however far from its keys
        assertThatThrownBy(() -> merged(new Properties(), Map.of("FENCEDLOCK_ACME_ENDPOINT_LIST", "x")))
                .hasMessageContaining("'FENCEDLOCK_ACME_ENDPOINT_LIST' (environment variable)")
                .hasMessageContaining("did you mean a key of the acme backend (FENCEDLOCK_ACME_*)?");
    }

    @Test
    void aMisspeltSystemPropertyIsAnErrorNotAQuietDefault() {
        Map<String, String> meant = Map.of(
                "fencedlock.lease-tme", "fencedlock.lease-time",
                "fencedlock.lease_time", "fencedlock.lease-time",
                "fencedlock.backedn", "fencedlock.backend");
        meant.forEach((typo, key) -> {
            Properties system = new Properties();
            system.setProperty(typo, "5s");
            assertThatThrownBy(() -> merged(system, Map.of()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(
                            "Unknown configuration key '" + typo + "' (system property); did you mean '" + key + "'?");
        });
        Properties system = new Properties();
        system.setProperty("fencedlock.acme.retries", "3");
        assertThatThrownBy(() -> merged(system, Map.of()))
                .hasMessageContaining("'fencedlock.acme.retries' (system property)")
                .hasMessageContaining("did you mean a key of the acme backend (fencedlock.acme.*)?");
    }

    @Test
    void namesOfOtherProgramsThatShareThePrefixAreIgnored() {
        // -Dfencedlock.version=... on a Maven command line reaches every test JVM through surefire
        Properties system = new Properties();
        system.setProperty("fencedlock.version", "0.1.0-SNAPSHOT");
        system.setProperty("fencedlock.test.containers", "never");
        LockConfig config =
                merged(system, Map.of("FENCEDLOCK_HOME", "/opt/fencedlock", "FENCEDLOCK_ETCD_ENDPOINTS", "x"));
        assertThat(config.backend()).isEqualTo("local");
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(11));
        assertThat(config.values()).doesNotContainKeys("fencedlock.version", "fencedlock.test.containers");
    }

    @Test
    void theApplicationsOwnSourcesStayStrict() {
        // the classpath file, fromProperties/fromMap and the builder reject every unknown key
        assertThatThrownBy(() -> LockConfig.fromMap(Map.of("fencedlock.backend", "local", "fencedlock.version", "1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown configuration key 'fencedlock.version'");
        assertThatThrownBy(() -> LockConfig.builder().set("fencedlock.version", "1"))
                .hasMessageContaining("fencedlock.version");
        ClassLoader withBadFile = new ClassLoader(getClass().getClassLoader()) {
            @Override
            public java.net.URL getResource(String name) {
                return ConfigSources.RESOURCE.equals(name)
                        ? getParent().getResource("bad-fencedlock.properties")
                        : super.getResource(name);
            }
        };
        assertThatThrownBy(() -> LockConfig.fromMap(
                        ConfigSources.merge(new Properties(), Map.of(), withBadFile, LockConfig.keys())))
                .hasMessageContaining("Unknown configuration key 'fencedlock.version'");
    }

    @Test
    void resemblanceIsEditsInTheVariableForm() {
        assertThat(KeyResemblance.distance("FENCEDLOCK_LEASE_TIME", "FENCEDLOCK_LAESE_TIME", 3))
                .isEqualTo(1);
        assertThat(KeyResemblance.distance("FENCEDLOCK_BACKEND", "FENCEDLOCK_BACK", 3))
                .isEqualTo(3);
        assertThat(KeyResemblance.distance("FENCEDLOCK_VERSION", "FENCEDLOCK_BACKEND", 3))
                .isEqualTo(3);
        assertThat(KeyResemblance.closestKey("fencedlock.fallbak", LockConfig.keys()))
                .contains("fencedlock.fallback");
        assertThat(KeyResemblance.resembles("fencedlock.version", LockConfig.keys(), java.util.List.of("acme")))
                .isFalse();
    }

    @Test
    void otherEnvironmentVariablesAreNotLookedAt() {
        LockConfig config = merged(new Properties(), Map.of("FENCEDLOCKX", "1", "fencedlock_lease_tmie", "5s"));
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(11));
    }
}
