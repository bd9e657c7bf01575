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

    private ConfigSources() {}

    /**
     * Returns the merged {@code fencedlock.*} values. Environment variables are consulted only for
     * the known keys; the classpath file and system properties contribute every {@code fencedlock.*}
     * key they hold, so a misspelt key there is reported rather than ignored.
     */
    public static Map<String, String> merge(
            Properties systemProperties,
            Map<String, String> environment,
            ClassLoader classLoader,
            Collection<String> knownKeys) {
        Map<String, String> merged = new TreeMap<>();
        copyFencedlockKeys(classpathFile(classLoader), merged);
        for (String key : knownKeys) {
            String value = environment.get(LockConfig.environmentVariable(key));
            if (value != null) {
                merged.put(key, value);
            }
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
