package dev.fencedlock.internal.config;

import dev.fencedlock.LockConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Merges the three places configuration may come from. Precedence, highest first: system
 * properties, environment variables, {@code fencedlock.properties} on the classpath.
 */
public final class ConfigSources {
    public static final String RESOURCE = "fencedlock.properties";
    private static final String ENVIRONMENT_PREFIX = "FENCEDLOCK_";

    private ConfigSources() {}

    /**
     * Returns the merged {@code fencedlock.*} values. Every source contributes every {@code
     * fencedlock.*} key it holds, so that a misspelt key is reported rather than ignored: an
     * environment variable starting with {@code FENCEDLOCK_} must be the variable of one of {@code
     * knownKeys}.
     *
     * @throws IllegalArgumentException naming an environment variable that matches no known key
     */
    public static Map<String, String> merge(
            Properties systemProperties,
            Map<String, String> environment,
            ClassLoader classLoader,
            Collection<String> knownKeys) {
        Map<String, String> merged = new TreeMap<>();
        copyFencedlockKeys(classpathFile(classLoader), merged);
        Map<String, String> keysByVariable = new TreeMap<>();
        for (String key : knownKeys) {
            keysByVariable.put(LockConfig.environmentVariable(key), key);
        }
        for (Map.Entry<String, String> variable : new TreeMap<>(environment).entrySet()) {
            if (!variable.getKey().startsWith(ENVIRONMENT_PREFIX)) {
                continue;
            }
            String key = keysByVariable.get(variable.getKey());
            if (key == null) {
                throw new IllegalArgumentException("Environment variable " + variable.getKey()
                        + " matches no configuration key; known variables are " + keysByVariable.keySet()
                        + " (for the keys " + knownKeys + ")");
            }
            merged.put(key, variable.getValue());
        }
        copyFencedlockKeys(systemProperties, merged);
        return merged;
    }

    private static void copyFencedlockKeys(Properties source, Map<String, String> target) {
        for (String name : source.stringPropertyNames()) {
            if (name.startsWith("fencedlock.")) {
                target.put(name, source.getProperty(name));
            }
        }
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
