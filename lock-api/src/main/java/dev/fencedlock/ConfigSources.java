package dev.fencedlock;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges the three places configuration may come from. Precedence, highest first: system
 * properties, environment variables, {@code fencedlock.properties} on the classpath.
 *
 * <p>The classpath file is the application's own, so every {@code fencedlock.*} name in it must
 * be a key; an unknown one is rejected, the file named by its URL. System properties and environment variables are
 * the process's surroundings, shared with build tools and other programs ({@code
 * -Dfencedlock.version=...} on a Maven command line reaches every test JVM): a name there that is
 * no key is ignored (logged at INFO), unless it resembles a key ({@link KeyResemblance}), which is
 * taken for a typo and rejected. Every rejection is worded by {@link UnknownKeyMessage}, naming
 * the name as it was written.
 */
final class ConfigSources {
    static final String RESOURCE = "fencedlock.properties";
    private static final String ENVIRONMENT_PREFIX = "FENCEDLOCK_";
    private static final Logger LOG = LoggerFactory.getLogger(ConfigSources.class);

    private ConfigSources() {}

    /**
     * Returns the merged {@code fencedlock.*} values.
     *
     * @throws IllegalArgumentException for a name in the classpath file that is no key, and for a
     *     system property or environment variable that is no key but resembles one of {@code
     *     knownKeys}
     */
    static Map<String, String> merge(
            Properties systemProperties,
            Map<String, String> environment,
            ClassLoader classLoader,
            Collection<String> knownKeys) {
        Map<String, String> merged = new TreeMap<>();
        classpathFile(classLoader, knownKeys).forEach(merged::put);
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
                ignoreUnlessMisspelt("environment variable", name, knownKeys);
            }
        }
        for (String name : new TreeSet<>(systemProperties.stringPropertyNames())) {
            if (!name.startsWith(LockConfig.PREFIX)) {
                continue;
            }
            if (knownKeys.contains(name)) {
                merged.put(name, systemProperties.getProperty(name));
            } else {
                ignoreUnlessMisspelt("system property", name, knownKeys);
            }
        }
        return merged;
    }

    /**
     * Applies the rule for a name from the process's surroundings that is not a key: ignored and
     * logged, or rejected when it resembles a key ({@link KeyResemblance}).
     *
     * @param source the kind of source, for messages ({@code "system property"})
     * @param name the name as written there, in either form
     * @throws IllegalArgumentException worded by {@link UnknownKeyMessage}, when {@code name}
     *     resembles one of {@code knownKeys} or uses the prefix of a backend on the classpath
     */
    static void ignoreUnlessMisspelt(String source, String name, Collection<String> knownKeys) {
        if (KeyResemblance.resembles(name, knownKeys, ProviderRegistry.availableBackends())) {
            throw new IllegalArgumentException(UnknownKeyMessage.of(source, name, knownKeys));
        }
        LOG.info("Ignoring the {} {}: it is no fencedlock configuration key and resembles none", source, name);
    }

    /**
     * The {@code fencedlock.*} values of the classpath file, empty without one.
     *
     * @throws IllegalArgumentException for a name in it that is no key, the file named by its URL
     */
    private static Map<String, String> classpathFile(ClassLoader classLoader, Collection<String> knownKeys) {
        Map<String, String> values = new TreeMap<>();
        ClassLoader loader = classLoader != null ? classLoader : ConfigSources.class.getClassLoader();
        URL url = loader.getResource(RESOURCE);
        if (url == null) {
            return values;
        }
        Properties properties = new Properties();
        try (InputStream in = url.openStream()) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + url, e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(url + " is not a valid properties file: " + e.getMessage(), e);
        }
        for (String name : new TreeSet<>(properties.stringPropertyNames())) {
            if (!name.startsWith(LockConfig.PREFIX)) {
                continue;
            }
            if (!knownKeys.contains(name)) {
                throw new IllegalArgumentException(UnknownKeyMessage.of(url.toString(), name, knownKeys));
            }
            values.put(name, properties.getProperty(name));
        }
        return values;
    }
}
