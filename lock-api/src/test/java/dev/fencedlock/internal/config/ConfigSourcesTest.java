package dev.fencedlock.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(config.redlockRetryDelay()).isEqualTo(Duration.ofMillis(111));
    }

    @Test
    void environmentOverridesTheClasspathFile() {
        LockConfig config = merged(new Properties(), Map.of("FENCEDLOCK_LEASE_TIME", "22s", "PATH", "/bin"));
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(22));
        assertThat(config.redlockRetryDelay()).isEqualTo(Duration.ofMillis(111));
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
}
