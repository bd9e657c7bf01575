package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A misspelt {@code fencedlock.*} name fails start-up with one wording, wherever it was set: the
 * name as typed, where, "did you mean" in the same form, and the known keys with the starter's own.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(OutputCaptureExtension.class)
class UnknownKeyAtStartUpTest {
    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class));

    private static String knownKeys() {
        List<String> keys = new ArrayList<>(LockConfig.keys());
        keys.addAll(List.of(
                "fencedlock.initialize-schema",
                "fencedlock.protected-tables",
                "fencedlock.token.max-ahead",
                "fencedlock.token.accepted-keys",
                "fencedlock.token.signing-key-id",
                "fencedlock.token.signing-key",
                "fencedlock.token.require-signature",
                "fencedlock.token.receiver-bound",
                "fencedlock.token.propagate"));
        return " Known keys: " + keys + " (backends on the classpath: ";
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(FencedLockAutoConfiguration.class)
    static class Minimal {}

    @Test
    void aTypoInApplicationPropertiesIsAnsweredWithTheKeyItResembles(CapturedOutput output) {
        SpringApplicationBuilder application = new SpringApplicationBuilder(Minimal.class).web(WebApplicationType.NONE);
        assertThatThrownBy(() -> application.run("--spring.config.location=classpath:/typo/application.properties"))
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Unknown configuration key 'fencedlock.lease-tme' (application properties);"
                        + " did you mean 'fencedlock.lease-time'?" + knownKeys());
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("Unknown configuration key 'fencedlock.lease-tme' (application properties);"
                        + " did you mean 'fencedlock.lease-time'?");
    }

    @Test
    void aTypoInAnEnvironmentVariableIsNamedAsTyped() {
        runner.withPropertyValues("fencedlock.backend=local")
                .withInitializer(context -> context.getEnvironment()
                        .getPropertySources()
                        .addFirst(new SystemEnvironmentPropertySource(
                                "test-systemEnvironment", Map.of("FENCEDLOCK_LEASE_TMIE", "5s"))))
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith(
                                "Unknown configuration key 'FENCEDLOCK_LEASE_TMIE' (environment variable);"
                                        + " did you mean 'FENCEDLOCK_LEASE_TIME' (fencedlock.lease-time)?"
                                        + knownKeys())
                        .hasMessageNotContaining("fencedlock.lease.tmie"));
    }

    @Test
    void aTypoInASystemPropertyIsNamedAsTyped() {
        runner.withPropertyValues("fencedlock.backend=local")
                .withSystemProperties("fencedlock.fallbak-takeover=immediate")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith(
                                "Unknown configuration key 'fencedlock.fallbak-takeover' (system property);"
                                        + " did you mean 'fencedlock.fallback-takeover'?" + knownKeys()));
    }

    @Test
    void aTypoOfTheStartersOwnKeyIsAnsweredToo() {
        runner.withPropertyValues("fencedlock.backend=local", "fencedlock.initialise-schema=always")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith(
                                "Unknown configuration key 'fencedlock.initialise-schema' (application properties);"
                                        + " did you mean 'fencedlock.initialize-schema'?" + knownKeys()));
    }
}
