package dev.fencedlock.apirules;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The main classes of the published modules, as bytecode, each attributed to the module (Maven
 * artifactId) whose jar or {@code target/classes} holds it. Test classes are left out.
 */
final class PublishedClasses {

    /** {@code .../<artifactId>/target/classes/...} or {@code .../<artifactId>/target/<artifactId>-<version>.jar!/...}. */
    private static final Pattern IN_REACTOR = Pattern.compile("/([^/!]+)/target/(?:classes/|[^/!]+\\.jar!)");

    /** {@code .../dev/fencedlock/<artifactId>/<version>/<artifactId>-<version>.jar!/...} in a Maven repository. */
    private static final Pattern IN_REPOSITORY = Pattern.compile("/dev/fencedlock/([^/]+)/[^/]+/[^/]+\\.jar!");

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.fencedlock");

    private PublishedClasses() {}

    static JavaClasses all() {
        return CLASSES;
    }

    /**
     * The artifactId of the module that holds {@code type}.
     *
     * @throws IllegalStateException if the class file's location names no module
     */
    static String moduleOf(JavaClass type) {
        String location = type.getSource()
                .map(source -> source.getUri().toString())
                .orElseThrow(() -> new IllegalStateException("no class file for " + type.getName()));
        for (Pattern pattern : new Pattern[] {IN_REACTOR, IN_REPOSITORY}) {
            Matcher matcher = pattern.matcher(location);
            if (matcher.find()) {
                return matcher.group(1);
            }
        }
        throw new IllegalStateException("cannot tell the module of " + type.getName() + " from " + location);
    }

    /**
     * Every class named in a {@code META-INF/services} file of a published module: such a class
     * must be public for {@link java.util.ServiceLoader}, wherever it lives.
     */
    static Set<String> serviceProviders() {
        Set<String> roots = new TreeSet<>();
        for (JavaClass type : CLASSES) {
            type.getSource().map(source -> source.getUri().toString()).ifPresent(uri -> {
                String classFile = type.getName().replace('.', '/') + ".class";
                if (uri.endsWith(classFile)) {
                    roots.add(uri.substring(0, uri.length() - classFile.length()));
                }
            });
        }
        Set<String> providers = new TreeSet<>();
        for (String root : roots) {
            Path services = root(root).resolve("META-INF/services");
            if (!Files.isDirectory(services)) {
                continue;
            }
            try (Stream<Path> files = Files.list(services)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    for (String line : Files.readAllLines(file)) {
                        String name = line.replaceFirst("#.*", "").trim();
                        if (!name.isEmpty()) {
                            providers.add(name);
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return providers;
    }

    private static final Map<String, FileSystem> JARS = new HashMap<>();

    private static Path root(String uri) {
        if (!uri.startsWith("jar:")) {
            return Path.of(URI.create(uri));
        }
        String jar = uri.substring(0, uri.indexOf("!/"));
        FileSystem fileSystem = JARS.computeIfAbsent(jar, name -> {
            try {
                return FileSystems.newFileSystem(URI.create(name), Map.of());
            } catch (FileSystemAlreadyExistsException e) {
                return FileSystems.getFileSystem(URI.create(name));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return fileSystem.getPath("/");
    }

    static boolean isInternal(String packageName) {
        return packageName.matches("(.*\\.)?internal(\\..*)?");
    }

    /** Public, top level, and not the {@code package-info} or {@code module-info} pseudo-class. */
    static boolean isPublicTopLevel(JavaClass type) {
        return type.isTopLevelClass()
                && type.getModifiers().contains(JavaModifier.PUBLIC)
                && !type.getSimpleName().equals("package-info")
                && !type.getSimpleName().equals("module-info");
    }
}
