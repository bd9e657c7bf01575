package dev.fencedlock;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges the three places configuration may come from. Precedence, highest first: system
 * properties, environment variables, {@code fencedlock.properties} on the classpath.
 *
 * <p>The classpath file is the application's own, so every {@code fencedlock.*} key in it is
 * passed on and an unknown one is rejected later. System properties and environment variables are
 * the process's surroundings, shared with build tools and other programs ({@code
 * -Dfencedlock.version=...} on a Maven command line reaches every test JVM): a name there that is
 * no key is ignored (logged at INFO), unless it resembles a key ({@link KeyResemblance}), which is
 * taken for a typo and rejected.
 */
final class ConfigSources {
    static final String RESOURCE = "fencedlock.properties";
    private static final String ENVIRONMENT_PREFIX = "FENCEDLOCK_";
    private static final Logger LOG = LoggerFactory.getLogger(ConfigSources.class);

    private ConfigSources() {}

    /**
     * Returns the merged {@code fencedlock.*} values.
     *
     * @throws IllegalArgumentException naming a system property or environment variable that is
     *     no key but resembles one of {@code knownKeys}
     */
    static Map<String, String> merge(
            Properties systemProperties,
            Map<String, String> environment,
            ClassLoader classLoader,
            Collection<String> knownKeys) {
        Map<String, String> merged = new TreeMap<>();
        Properties file = classpathFile(classLoader);
        for (String name : file.stringPropertyNames()) {
            if (name.startsWith(LockConfig.PREFIX)) {
                merged.put(name, file.getProperty(name));
            }
        }
        Map<String, String> keysByVariable = new TreeMap<>();
        for (String key : knownKeys) {
            keysByVariable.put(LockConfig.environmentVariable(key), key);
        }
        for (Map.Entry<String, String> variable : new TreeMap<>(environment).entrySet()) {
            String name = variable.getKey();
            if (!name.startsWith(ENVIRONMENT_PREFIX)) {
                continue;
            }
            String key = keysByVariable.get(name);
            if (key != null) {
                merged.put(key, variable.getValue());
            } else {
                ignoreUnlessMisspelt("environment variable " + name, name, knownKeys);
            }
        }
        for (String name : new TreeSet<>(systemProperties.stringPropertyNames())) {
            if (!name.startsWith(LockConfig.PREFIX)) {
                continue;
            }
            if (knownKeys.contains(name)) {
                merged.put(name, systemProperties.getProperty(name));
            } else {
                ignoreUnlessMisspelt("system property " + name, name, knownKeys);
            }
        }
        return merged;
    }

    /**
     * Applies the rule for a name from the process's surroundings that is not a key: ignored and
     * logged, or rejected when it resembles a key ({@link KeyResemblance}).
     *
     * @param what the kind of source and the name, for messages ({@code "system property
     *     fencedlock.x"})
     * @throws IllegalArgumentException when {@code name} resembles one of {@code knownKeys} or uses
     *     the prefix of a backend on the classpath
     */
    static void ignoreUnlessMisspelt(String what, String name, Collection<String> knownKeys) {
        Optional<String> meant = KeyResemblance.resembled(name, knownKeys, ProviderRegistry.availableBackends());
        if (meant.isPresent()) {
            throw new IllegalArgumentException("The " + what + " matches no configuration key but looks like "
                    + meant.get() + "; correct or remove it (known keys: " + knownKeys
                    + "; names that resemble no key are ignored)");
        }
        LOG.info("Ignoring the {}: it is no fencedlock configuration key and resembles none", what);
    }

    private static Properties classpathFile(ClassLoader classLoader) {
        Properties properties = new Properties();
        ClassLoader loader = classLoader != null ? classLoader : ConfigSources.class.getClassLoader();
        URL url = loader.getResource(RESOURCE);
        if (url == null) {
            return properties;
        }
        try (InputStream in = url.openStream()) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + url, e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(url + " is not a valid properties file: " + e.getMessage(), e);
        }
        return properties;
    }
}
