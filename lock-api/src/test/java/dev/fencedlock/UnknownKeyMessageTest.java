package dev.fencedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * A name that is no key reads the same wherever it was written: the name as typed, where, what it
 * most likely meant in the same form, and the known keys. The test classpath has the {@code acme}
 * and {@code local} backends.
 */
class UnknownKeyMessageTest {
    private static final String KNOWN =
            " Known keys: " + LockConfig.keys() + " (backends on the classpath: [acme, local])";

    private static LockConfig fromEnvironment(Properties system, Map<String, String> environment) {
        return LockConfig.fromEnvironment(system, environment, UnknownKeyMessageTest.class.getClassLoader());
    }

    @Test
    void aTypoInPropertiesIsNamedWithWhatItResembles() {
        Properties properties = new Properties();
        properties.setProperty("fencedlock.backend", "local");
        properties.setProperty("fencedlock.lease-tme", "5s");
        assertThatThrownBy(() -> LockConfig.fromProperties(properties))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown configuration key 'fencedlock.lease-tme'; did you mean 'fencedlock.lease-time'?"
                        + KNOWN);
    }

    @Test
    void aTypoInASystemPropertyIsNamedAsTypedWithItsSource() {
        Properties system = new Properties();
        system.setProperty("fencedlock.lease-tme", "5s");
        assertThatThrownBy(() -> fromEnvironment(system, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown configuration key 'fencedlock.lease-tme' (system property);"
                        + " did you mean 'fencedlock.lease-time'?" + KNOWN);
    }

    @Test
    void aTypoInAnEnvironmentVariableIsNamedAsTypedAndAnsweredInTheSameForm() {
        assertThatThrownBy(() -> fromEnvironment(new Properties(), Map.of("FENCEDLOCK_LEASE_TMIE", "5s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown configuration key 'FENCEDLOCK_LEASE_TMIE' (environment variable);"
                        + " did you mean 'FENCEDLOCK_LEASE_TIME' (fencedlock.lease-time)?" + KNOWN);
    }

    @Test
    void aNameUnderABackendsPrefixIsTakenForOneOfItsKeys() {
        assertThatThrownBy(() -> fromEnvironment(new Properties(), Map.of("FENCEDLOCK_ACME_ENDPOINT_LIST", "x")))
                .hasMessage("Unknown configuration key 'FENCEDLOCK_ACME_ENDPOINT_LIST' (environment variable);"
                        + " did you mean a key of the acme backend (FENCEDLOCK_ACME_*)?" + KNOWN);
        assertThatThrownBy(() ->
                        LockConfig.fromMap(Map.of("fencedlock.backend", "local", "fencedlock.acme.endpoints", "x")))
                .hasMessage("Unknown configuration key 'fencedlock.acme.endpoints';"
                        + " did you mean a key of the acme backend (fencedlock.acme.*)?" + KNOWN);
    }

    @Test
    void anUnknownKeyThatResemblesNoneIsStillRejectedWhereTheApplicationSetIt() {
        assertThatThrownBy(() -> LockConfig.fromMap(Map.of("fencedlock.backend", "local", "fencedlock.version", "1")))
                .hasMessage("Unknown configuration key 'fencedlock.version'." + KNOWN);
    }

    @Test
    void aTypoInTheClasspathFileIsNamedWithTheFile() {
        URL bad = getClass().getClassLoader().getResource("bad-fencedlock.properties");
        ClassLoader withBadFile = new ClassLoader(getClass().getClassLoader()) {
            @Override
            public URL getResource(String name) {
                return ConfigSources.RESOURCE.equals(name) ? bad : super.getResource(name);
            }
        };
        assertThatThrownBy(() -> LockConfig.fromEnvironment(new Properties(), Map.of(), withBadFile))
                .hasMessage("Unknown configuration key 'fencedlock.version' (" + bad + ")." + KNOWN);
    }

    @Test
    void aFrameworkNamesItsOwnSourceAndKeys() {
        List<String> starterKeys = List.of("fencedlock.initialize-schema");
        List<String> known = new java.util.ArrayList<>(LockConfig.keys());
        known.addAll(starterKeys);
        assertThat(LockConfig.unknownKey("application properties", "fencedlock.initialise-schema", starterKeys))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown configuration key 'fencedlock.initialise-schema' (application properties);"
                        + " did you mean 'fencedlock.initialize-schema'? Known keys: " + known
                        + " (backends on the classpath: [acme, local])");
        assertThatThrownBy(() -> LockConfig.ignoreUnlessMisspelt(
                        "environment variable", "FENCEDLOCK_INITIALIZE_SCHEME", starterKeys))
                .hasMessageStartingWith(
                        "Unknown configuration key 'FENCEDLOCK_INITIALIZE_SCHEME' (environment variable);"
                                + " did you mean 'FENCEDLOCK_INITIALIZE_SCHEMA' (fencedlock.initialize-schema)?");
    }
}
