package dev.fencedlock.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
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
                .hasMessageContaining("Environment variable FENCEDLOCK_LEASE_TMIE matches no configuration key")
                .hasMessageContaining("FENCEDLOCK_LEASE_TIME");
        assertThatThrownBy(() -> merged(new Properties(), Map.of("FENCEDLOCK_ACME_TIMOUT", "5s")))
                .hasMessageContaining("FENCEDLOCK_ACME_TIMOUT")
                .hasMessageContaining("FENCEDLOCK_ACME_TIMEOUT");
        assertThatThrownBy(() -> merged(new Properties(), Map.of("FENCEDLOCK_ETCD_ENDPOINTS", "x")))
                .hasMessageContaining("FENCEDLOCK_ETCD_ENDPOINTS");
    }

    @Test
    void otherEnvironmentVariablesAreNotLookedAt() {
        LockConfig config = merged(new Properties(), Map.of("FENCEDLOCKX", "1", "fencedlock_lease_tmie", "5s"));
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(11));
    }
}
