package io.valueguard.helm;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.valueguard.support.ConfigurationMetadata;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The Helm chart, checked with real Helm (helm-java runs Helm's own Go code): lint, template with the default values
 * and with the production-like {@code ci/} values, schema validation, and assertions on the rendered objects, each
 * parsed as a typed Kubernetes object with no unknown fields.
 */
class HelmChartTests {

	private static final Path CHART = Path.of("helm", "valueguard");

	/**
	 * What the rendering tests render: a {@link RenderableChart} copy of the chart;
	 * {@link #shouldRequireAKubernetesThatHasEveryFieldItRenders} checks the real kubeVersion.
	 */
	private static Path rendered;

	private static final KubernetesSerialization KUBERNETES = new KubernetesSerialization();

	private static final String ISSUER = "https://login.example.com/realms/platform";

	@BeforeAll
	static void copyChart(@TempDir Path copies) {
		rendered = RenderableChart.copyOf(CHART, copies);
	}

	@Test
	void shouldPassLint() {
		LintResult result = new Helm(CHART).lint().strict().call();

		assertThat(result.isFailed()).as(String.join("\n", result.getMessages())).isFalse();
	}

	@Test
	void shouldRenderStatefulSetWithDefaults() throws Exception {
		List<HasMetadata> objects = render(UnaryOperator.identity());

		assertThat(objects).extracting(HasMetadata::getKind)
			.containsExactlyInAnyOrder("ServiceAccount", "ConfigMap", "Service", "Service", "StatefulSet",
					"PodDisruptionBudget", "NetworkPolicy", "Pod");
		StatefulSet statefulSet = only(objects, StatefulSet.class);
		assertThat(statefulSet.getSpec().getReplicas()).isEqualTo(3);
		assertThat(statefulSet.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted()).isEqualTo("Retain");
		assertThat(statefulSet.getSpec().getServiceName()).isEqualTo("vg-valueguard-headless");
		Container container = statefulSet.getSpec().getTemplate().getSpec().getContainers().get(0);
		assertThat(container.getImage()).isEqualTo("valueguard/valueguard:0.1.0");

		assertThat(env(container, "POD_NAME").getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
		assertThat(env(container, "POD_NAMESPACE").getValueFrom().getFieldRef().getFieldPath())
			.isEqualTo("metadata.namespace");
		assertThat(env(container, "VALUEGUARD_ADVERTISED_HOST").getValue())
			.isEqualTo("$(POD_NAME).vg-valueguard-headless.$(POD_NAMESPACE).svc");
		assertThat(env(container, "VALUEGUARD_ADVERTISED_PORT").getValue())
			.as("the other instances reach a pod on the protocol's own port")
			.isEqualTo("8082");
		assertThat(env(container, "VALUEGUARD_INSTANCE_NAME").getValue()).as("static membership from the pod name")
			.isEqualTo("$(POD_NAME)");
		assertThat(env(container, "KAFKA_BOOTSTRAP_SERVERS").getValue()).isEqualTo("kafka:9092");
		// heap at 40% of the limit, the rest kept for RocksDB off-heap, with and without the buildpack's calculator
		// memory derived from heap + RocksDB's shared cache + JVM overhead, and RocksDB bounded to its budget
		assertThat(env(container, "JAVA_TOOL_OPTIONS").getValue()).contains("-Xmx1024m")
			.as("not the JVM's choice, which is Serial below 1,792 MiB").contains("-XX:+UseG1GC");
		assertThat(env(container, "VALUEGUARD_ROCKSDB_BLOCK_CACHE_SIZE").getValue()).isEqualTo("256MB");
		assertThat(env(container, "VALUEGUARD_ROCKSDB_WRITE_BUFFER_BUDGET").getValue()).isEqualTo("64MB");
		assertThat(env(container, "VALUEGUARD_ROCKSDB_PARTITIONED_FILTERS").getValue()).isEqualTo("false");
		assertThat(container.getResources().getLimits().get("memory").toString()).isEqualTo("1664Mi");
		assertThat(container.getResources().getRequests().get("memory").toString()).isEqualTo("1664Mi");
		assertThat(container.getResources().getRequests().get("cpu").toString()).isEqualTo("500m");

		assertThat(container.getStartupProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/liveness");
		assertThat(container.getStartupProbe().getHttpGet().getPort().getStrVal()).isEqualTo("management");
		assertThat(container.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("management");
		assertThat(container.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("management");
		assertThat(container.getPorts()).extracting((port) -> port.getName() + ":" + port.getContainerPort())
			.containsExactly("http:8080", "management:8081", "internal:8082");
		assertThat(container.getStartupProbe().getFailureThreshold()).isEqualTo(90);
		assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/liveness");
		assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/readiness");
		assertThat(statefulSet.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds()).isEqualTo(60);

		assertThat(container.getVolumeMounts()).extracting((mount) -> mount.getName() + ":" + mount.getMountPath())
			.contains("state:/var/lib/valueguard", "tmp:/tmp", "config:/config");
		assertThat(statefulSet.getSpec().getVolumeClaimTemplates()).singleElement().satisfies((claim) -> {
			assertThat(claim.getMetadata().getName()).isEqualTo("state");
			assertThat(claim.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("10Gi");
		});

		var pod = statefulSet.getSpec().getTemplate().getSpec().getSecurityContext();
		assertThat(pod.getRunAsNonRoot()).isTrue();
		assertThat(pod.getFsGroup()).isEqualTo(1000L);
		assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
		assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
		assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");

		assertThat(only(objects, PodDisruptionBudget.class).getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
		Service headless = objects.stream()
			.filter(Service.class::isInstance)
			.map(Service.class::cast)
			.filter((service) -> "None".equals(service.getSpec().getClusterIP()))
			.findFirst()
			.orElseThrow();
		assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
		assertThat(only(objects, ConfigMap.class).getData().get("application.yml"))
			.contains("bootstrap-servers: \"kafka:9092\"", "state-dir: /var/lib/valueguard/state",
					"replication-factor: 3", "min-insync-replicas: 2", "security.protocol: PLAINTEXT",
					"require-authentication: true", "issuer-uri: \"" + ISSUER + "\"", "port: 8081",
					"policy: \"latest-wins\"", "max-compaction-lag: \"1d\"", "delete-retention: \"1d\"");
		assertThat(only(objects, ConfigMap.class).getData().get("application.yml")).doesNotContain(" retention:");
		Service api = objects.stream()
			.filter(Service.class::isInstance)
			.map(Service.class::cast)
			.filter((service) -> !"None".equals(service.getSpec().getClusterIP()))
			.findFirst()
			.orElseThrow();
		assertThat(api.getSpec().getPorts()).as("the API Service exposes the API port only")
			.extracting((port) -> port.getTargetPort().getStrVal())
			.containsExactly("http");
		assertThat(headless.getSpec().getPorts()).extracting((port) -> port.getName())
			.containsExactly("http", "internal", "management");
		assertThat(env(container, "VALUEGUARD_SECURITY_INTERNAL_SECRET").getValueFrom().getSecretKeyRef().getName())
			.isEqualTo("vg-valueguard-internal");
		// helm template leaves hooks out, so the generated Secret is checked as the chart ships it
		String internal = java.nio.file.Files.readString(CHART.resolve("templates/secret-internal.yaml"));
		assertThat(internal).as("created once at install, kept through upgrades and uninstall")
			.contains("helm.sh/hook: pre-install", "helm.sh/resource-policy: keep", "randAlphaNum 48");
	}

	@Test
	void shouldShipAnEndToEndHelmTest() {
		Pod open = testPod(new Helm(rendered).template().withName("vg").withNamespace("data")
			.set("security.requireAuthentication", "false").set("replicaCount", "4").call());
		Container claim = open.getSpec().getContainers().get(0);
		assertThat(env(claim, "FIRST").getValue()).isEqualTo("http://vg-valueguard-0.vg-valueguard-headless.data.svc:8080");
		assertThat(env(claim, "LAST").getValue()).isEqualTo("http://vg-valueguard-3.vg-valueguard-headless.data.svc:8080");
		assertThat(env(claim, "SECURED").getValue()).isEqualTo("false");
		assertThat(String.join("\n", claim.getCommand())).contains("?wait=30s", "\"$LAST/api/bindings/$key\"",
				"erase=true", "\"outcome\":\"ERASED\"");
		assertThat(open.getMetadata().getLabels()).containsEntry("vg-valueguard-client", "true");

		Pod secured = testPod(new Helm(rendered).template().withName("vg").withNamespace("data")
			.set("security.jwt.issuerUri", ISSUER).set("tests.authorizationSecret", "vg-test-token")
			.set("tls.enabled", "true").set("tls.existingSecret", "vg-tls").call());
		Container securedClaim = secured.getSpec().getContainers().get(0);
		assertThat(env(securedClaim, "SECURED").getValue()).isEqualTo("true");
		assertThat(env(securedClaim, "AUTHORIZATION").getValueFrom().getSecretKeyRef().getName())
			.isEqualTo("vg-test-token");
		assertThat(env(securedClaim, "FIRST").getValue()).startsWith("https://");
		assertThat(String.join("\n", securedClaim.getCommand())).contains("--cacert /etc/valueguard/tls/ca.crt");
		assertThat(secured.getSpec().getVolumes()).extracting((volume) -> volume.getSecret().getSecretName())
			.containsExactly("vg-tls");
	}

	@Test
	void shouldRequireAKubernetesThatHasEveryFieldItRenders() throws Exception {
		// persistentVolumeClaimRetentionPolicy: beta and on by default from 1.27; policy/v1 PDBs from 1.21
		assertThat(Files.readString(CHART.resolve("Chart.yaml"))).contains("kubeVersion: \">=1.27.0-0\"");
	}

	private static Pod testPod(String manifests) {
		return Arrays.stream(manifests.split("(?m)^---\\s*$"))
			.filter((document) -> document.contains("name: vg-valueguard-test-claim"))
			.map((document) -> (Pod) KUBERNETES.unmarshal(document))
			.findFirst()
			.orElseThrow();
	}

	@Test
	void shouldRenderTheOperatorsValues() {
		List<HasMetadata> objects = render((template) -> template
			.set("topologySpreadConstraints[0].maxSkew", "1")
			.set("topologySpreadConstraints[0].topologyKey", "topology.kubernetes.io/zone")
			.set("topologySpreadConstraints[0].whenUnsatisfiable", "ScheduleAnyway")
			.set("priorityClassName", "data-critical")
			.set("extraVolumes[0].name", "certs").set("extraVolumes[0].emptyDir.medium", "Memory")
			.set("extraVolumeMounts[0].name", "certs").set("extraVolumeMounts[0].mountPath", "/certs")
			.set("extraContainers[0].name", "proxy").set("extraContainers[0].image", "envoyproxy/envoy:v1.31")
			.set("initContainers[0].name", "wait").set("initContainers[0].image", "busybox:1.36")
			.set("persistence.retentionPolicy.whenScaled", "Delete")
			.set("rocksdb.partitionedFilters", "true")
			.set("probes.liveness.timeoutSeconds", "5").set("probes.startup.initialDelaySeconds", "20")
			.set("metrics.serviceMonitor.enabled", "true").set("metrics.serviceMonitor.scrapeTimeout", "20s")
			.set("metrics.serviceMonitor.relabelings[0].targetLabel", "team")
			.set("metrics.serviceMonitor.relabelings[0].replacement", "platform")
			.set("metrics.serviceMonitor.metricRelabelings[0].action", "drop")
			.set("metrics.serviceMonitor.metricRelabelings[0].sourceLabels[0]", "__name__")
			.set("metrics.serviceMonitor.metricRelabelings[0].regex", "kafka_producer_node_.*")
			.set("grafana.dashboard.enabled", "true").set("grafana.dashboard.folder", "Data platform"));

		StatefulSet statefulSet = only(objects, StatefulSet.class);
		var pod = statefulSet.getSpec().getTemplate().getSpec();
		assertThat(pod.getTopologySpreadConstraints()).singleElement().satisfies((constraint) -> {
			assertThat(constraint.getTopologyKey()).isEqualTo("topology.kubernetes.io/zone");
			assertThat(constraint.getLabelSelector().getMatchLabels())
				.containsEntry("app.kubernetes.io/name", "valueguard");
		});
		assertThat(pod.getPriorityClassName()).isEqualTo("data-critical");
		assertThat(pod.getVolumes()).extracting((volume) -> volume.getName()).contains("certs");
		assertThat(pod.getContainers()).extracting(Container::getName).containsExactly("valueguard", "proxy");
		assertThat(pod.getContainers().get(0).getVolumeMounts()).extracting((mount) -> mount.getMountPath())
			.contains("/certs");
		assertThat(pod.getInitContainers()).extracting(Container::getName).containsExactly("wait");
		assertThat(pod.getContainers().get(0).getLivenessProbe().getTimeoutSeconds()).isEqualTo(5);
		assertThat(pod.getContainers().get(0).getStartupProbe().getInitialDelaySeconds()).isEqualTo(20);
		assertThat(env(pod.getContainers().get(0), "VALUEGUARD_ROCKSDB_PARTITIONED_FILTERS").getValue())
			.isEqualTo("true");
		assertThat(statefulSet.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled()).isEqualTo("Delete");
		assertThat(statefulSet.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted())
			.isEqualTo("Retain");
		var endpoint = only(objects, ServiceMonitor.class).getSpec().getEndpoints().get(0);
		assertThat(endpoint.getScrapeTimeout()).isEqualTo("20s");
		assertThat(endpoint.getRelabelings()).singleElement()
			.satisfies((relabel) -> assertThat(relabel.getTargetLabel()).isEqualTo("team"));
		assertThat(endpoint.getMetricRelabelings()).singleElement()
			.satisfies((relabel) -> assertThat(relabel.getAction()).isEqualTo("drop"));
		ConfigMap dashboard = objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast)
			.filter((map) -> map.getData().containsKey("valueguard.json")).findFirst().orElseThrow();
		assertThat(dashboard.getMetadata().getAnnotations()).containsEntry("grafana_folder", "Data platform");
	}

	@Test
	void shouldLeaveOptionalObjectsOutByDefault() {
		List<HasMetadata> objects = render(UnaryOperator.identity());

		assertThat(objects).noneMatch(ServiceMonitor.class::isInstance)
			.noneMatch(PrometheusRule.class::isInstance)
			.noneMatch(Ingress.class::isInstance);
		assertThat(objects).filteredOn(ConfigMap.class::isInstance).hasSize(1);
	}

	@Test
	void shouldRenderProductionValuesWithSecretsAndMonitoring() {
		List<HasMetadata> objects = render((template) -> template.withValuesFile(CHART.resolve("ci")
			.resolve("production-values.yaml")));

		StatefulSet statefulSet = only(objects, StatefulSet.class);
		assertThat(statefulSet.getSpec().getReplicas()).isEqualTo(5);
		Container container = statefulSet.getSpec().getTemplate().getSpec().getContainers().get(0);
		assertThat(container.getImage()).isEqualTo("registry.example.com/platform/valueguard:0.1.0");
		// 2048 MiB heap + 1536 MiB RocksDB + 384 MiB overhead
		assertThat(container.getResources().getLimits().get("memory").toString()).isEqualTo("3968Mi");
		assertThat(container.getResources().getRequests().get("cpu").toString()).isEqualTo("2");
		// secrets come from existing Secrets, never from values
		assertThat(env(container, "KAFKA_SASL_JAAS_CONFIG").getValueFrom().getSecretKeyRef().getName())
			.isEqualTo("valueguard-kafka-user");
		assertThat(env(container, "KAFKA_TRUSTSTORE_PASSWORD").getValueFrom().getSecretKeyRef().getKey())
			.isEqualTo("ca.password");
		assertThat(container.getVolumeMounts()).extracting((mount) -> mount.getMountPath())
			.contains("/etc/valueguard/kafka-tls");
		String application = objects.stream()
			.filter(ConfigMap.class::isInstance)
			.map(ConfigMap.class::cast)
			.filter((map) -> map.getData().containsKey("application.yml"))
			.findFirst()
			.orElseThrow()
			.getData()
			.get("application.yml");
		assertThat(application).contains("security.protocol: SASL_SSL", "sasl.mechanism: SCRAM-SHA-512",
				"sasl.jaas.config: ${KAFKA_SASL_JAAS_CONFIG}", "ssl.truststore.location: /etc/valueguard/kafka-tls/ca.p12",
				"partitions: 24", "policy: \"first-wins\"", "retention: \"400d\"");
		assertThat(application).doesNotContain("password:\"", "scram");

		ServiceMonitor monitor = only(objects, ServiceMonitor.class);
		assertThat(monitor.getSpec().getEndpoints()).singleElement()
			.satisfies((endpoint) -> assertThat(endpoint.getPath()).isEqualTo("/actuator/prometheus"));
		assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
		PrometheusRule rules = only(objects, PrometheusRule.class);
		assertThat(rules.getSpec().getGroups()).singleElement()
			.satisfies((group) -> assertThat(group.getRules()).hasSize(16));
		ConfigMap dashboard = objects.stream()
			.filter(ConfigMap.class::isInstance)
			.map(ConfigMap.class::cast)
			.filter((map) -> map.getData().containsKey("valueguard.json"))
			.findFirst()
			.orElseThrow();
		assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
		assertThat(dashboard.getMetadata().getNamespace()).isEqualTo("monitoring");
		assertThat(dashboard.getData().get("valueguard.json")).contains("\"uid\": \"valueguard\"");
		assertThat(only(objects, Ingress.class).getSpec().getRules()).singleElement()
			.satisfies((rule) -> assertThat(rule.getHost()).isEqualTo("valueguard.internal.example.com"));
	}

	@Test
	void shouldExposeOnlyTheApiAndItsDocumentationThroughTheIngress() {
		List<HasMetadata> objects = render((template) -> template.set("ingress.enabled", "true"));

		assertThat(only(objects, Ingress.class).getSpec().getRules()).singleElement()
			.satisfies((rule) -> assertThat(rule.getHttp().getPaths()).extracting((path) -> path.getPath())
				.containsExactly("/api", "/v3/api-docs", "/swagger-ui"));
	}

	@Test
	void shouldKeepG1sHeapLeanWithAYoungGenerationOfAnEighthOfTheHeapUnlessTurnedOff() {
		assertThat(javaToolOptions(UnaryOperator.identity()))
			.contains("-XX:+UseG1GC -Xms384m -XX:GCTimeRatio=4 -XX:NewSize=128m ");
		assertThat(javaToolOptions((template) -> template.set("jvm.heapMiB", "3000")))
			.contains("-Xmx3000m -XX:+UseG1GC -Xms1125m -XX:GCTimeRatio=4 -XX:NewSize=375m ");
		assertThat(javaToolOptions((template) -> template.set("jvm.leanHeap", "false"))).contains("-XX:+UseG1GC")
			.doesNotContain("-Xms")
			.doesNotContain("GCTimeRatio")
			.doesNotContain("NewSize");
	}

	@Test
	void shouldLeaveTheCollectorToTheJvmOnlyWhenAskedAndRefuseAnUnknownOne() {
		assertThat(javaToolOptions((template) -> template.set("jvm.garbageCollector", "Parallel")))
			.contains("-XX:+UseParallelGC")
			.doesNotContain("G1")
			.as("G1's lean heap options would make Parallel collect up to a fifth of the time")
			.doesNotContain("GCTimeRatio");

		assertThat(javaToolOptions((template) -> template.set("jvm.garbageCollector", ""))).doesNotContain("-XX:+Use")
			.doesNotContain("GCTimeRatio");

		// a misspelt collector would stop the JVM at start ("Unrecognized VM option"); the chart refuses it instead
		assertThatException().isThrownBy(() -> render((template) -> template.set("jvm.garbageCollector", "CMS")))
			.withMessageContaining("garbageCollector");
	}

	@Test
	void shouldRenderTheValuesDocsScalingGivesDeploymentsShortOfMemory(@TempDir Path values) throws Exception {
		// the YAML block under "Where memory is tighter still", as a user would copy it
		String scaling = Files.readString(Path.of("docs", "scaling.md"));
		int section = scaling.indexOf("**Where memory is tighter still**");
		assertThat(section).isNotNegative();
		int start = scaling.indexOf("```yaml\n", section) + "```yaml\n".length();
		String block = scaling.substring(start, scaling.indexOf("```", start));
		Path tight = Files.writeString(values.resolve("tight.yaml"), block);

		Container container = container(render((template) -> template.withValuesFile(tight)));
		assertThat(env(container, "JAVA_TOOL_OPTIONS").getValue()).contains(
				"-XX:+UseG1GC -Xms384m -XX:GCTimeRatio=4 -XX:NewSize=128m",
				"-Djdk.nio.maxCachedBufferSize=262144 -XX:TrimNativeHeapInterval=5000");
		assertThat(env(container, "MALLOC_ARENA_MAX").getValue()).isEqualTo("2");
	}

	@Test
	void shouldRefuseToRenderAnInstallThatWouldTakeNoCredentials() {
		assertThatException().isThrownBy(() -> renderBare(UnaryOperator.identity()))
			.withMessageContaining("security.requireAuthentication is true, but the API would take no credentials");

		List<HasMetadata> open = renderBare((template) -> template.set("security.requireAuthentication", "false"));
		assertThat(only(open, ConfigMap.class).getData().get("application.yml"))
			.contains("require-authentication: false")
			.doesNotContain("issuer-uri");
	}

	@Test
	void shouldTakeBasicUsersKeyClaimAndTheInternalSecretFromSecrets() {
		List<HasMetadata> objects = renderBare((template) -> template.set("security.basic.existingSecret", "vg-users")
			.set("security.keyClaim", "sub")
			.set("security.internalSecret.existingSecret", "vg-hmac"));

		Container container = container(objects);
		assertThat(env(container, "SPRING_CONFIG_ADDITIONAL_LOCATION").getValue())
			.endsWith(",file:/etc/valueguard/users/users.yml");
		assertThat(env(container, "VALUEGUARD_SECURITY_INTERNAL_SECRET").getValueFrom().getSecretKeyRef().getName())
			.isEqualTo("vg-hmac");
		assertThat(container.getVolumeMounts()).extracting((mount) -> mount.getMountPath())
			.contains("/etc/valueguard/users");
		assertThat(only(objects, ConfigMap.class).getData().get("application.yml")).contains("key-claim: \"sub\"");
	}

	@Test
	void shouldServeHttpsWithTheCertificateOfASecretAndVerifyPeersOnForwards() {
		List<HasMetadata> objects = render((template) -> template.set("tls.enabled", "true")
			.set("tls.existingSecret", "vg-tls"));

		String application = only(objects, ConfigMap.class).getData().get("application.yml");
		assertThat(application).contains("bundle: server", "certificate: file:/etc/valueguard/tls/tls.crt",
				"private-key: file:/etc/valueguard/tls/tls.key", "certificate: file:/etc/valueguard/tls/ca.crt",
				"peer-ssl-bundle: peers");
		Container container = container(objects);
		assertThat(container.getVolumeMounts()).extracting((mount) -> mount.getMountPath()).contains("/etc/valueguard/tls");
		assertThatException().isThrownBy(() -> render((template) -> template.set("tls.enabled", "true")))
			.withMessageContaining("tls.existingSecret is required");
	}

	@Test
	void shouldLetOnlyTheMonitoringNamespaceAndTheReleaseReachTheManagementPort() {
		List<HasMetadata> objects = render((template) -> template.set("networkPolicy.apiFrom[0].namespaceSelector"
				+ ".matchLabels.team", "checkout"));
		NetworkPolicy policy = only(objects, NetworkPolicy.class);

		assertThat(policy.getSpec().getIngress()).hasSize(3);
		var api = policy.getSpec().getIngress().get(0);
		assertThat(api.getPorts()).singleElement().satisfies((port) -> assertThat(port.getPort().getStrVal()).isEqualTo("http"));
		assertThat(api.getFrom()).hasSize(3);
		assertThat(api.getFrom().get(0).getNamespaceSelector().getMatchLabels()).containsEntry("team", "checkout");
		assertThat(api.getFrom().get(1).getPodSelector().getMatchLabels())
			.containsEntry("app.kubernetes.io/instance", "vg");
		// the helm test claims through the API
		assertThat(api.getFrom().get(2).getPodSelector().getMatchLabels()).containsEntry("vg-valueguard-client", "true");
		// the instance protocol on its own port, from the release's pods only
		var internal = policy.getSpec().getIngress().get(1);
		assertThat(internal.getPorts()).singleElement()
			.satisfies((port) -> assertThat(port.getPort().getStrVal()).isEqualTo("internal"));
		assertThat(internal.getFrom()).singleElement()
			.satisfies((peer) -> assertThat(peer.getPodSelector().getMatchLabels())
				.containsEntry("app.kubernetes.io/instance", "vg"));
		assertThat(only(objects, ConfigMap.class).getData().get("application.yml")).contains("internal-port: 8082");
		var management = policy.getSpec().getIngress().get(2);
		assertThat(management.getPorts()).singleElement()
			.satisfies((port) -> assertThat(port.getPort().getStrVal()).isEqualTo("management"));
		assertThat(management.getFrom().get(0).getNamespaceSelector().getMatchLabels())
			.containsEntry("kubernetes.io/metadata.name", "monitoring");
		assertThat(render((template) -> template.set("networkPolicy.enabled", "false")))
			.noneMatch(NetworkPolicy.class::isInstance);
		// with internalPort 0 the protocol shares the API port: no port of its own, no rule for it
		List<HasMetadata> shared = render((template) -> template.set("internalPort", "0"));
		assertThat(only(shared, NetworkPolicy.class).getSpec().getIngress()).hasSize(2);
		assertThat(env(container(shared), "VALUEGUARD_ADVERTISED_PORT").getValue()).isEqualTo("8080");
		assertThat(only(shared, ConfigMap.class).getData().get("application.yml")).doesNotContain("internal-port");
		assertThat(container(shared).getPorts()).extracting((port) -> port.getName())
			.containsExactly("http", "management");
	}

	@Test
	void shouldRenderExactlyTheKafkaClientPropertiesOfASecuredBroker() {
		List<HasMetadata> objects = render((template) -> template.set("kafka.securityProtocol", "SASL_SSL")
			.set("kafka.sasl.existingSecret", "kafka-user")
			.set("kafka.tls.existingSecret", "kafka-ca")
			.set("kafka.tls.truststoreKey", "ca.crt")
			.set("kafka.tls.truststoreType", "PEM"));

		String application = only(objects, ConfigMap.class).getData().get("application.yml");
		assertThat(application).contains("security.protocol: SASL_SSL\n", "sasl.mechanism: SCRAM-SHA-512\n",
				"sasl.jaas.config: ${KAFKA_SASL_JAAS_CONFIG}\n", "ssl.truststore.type: PEM\n",
				"ssl.truststore.location: /etc/valueguard/kafka-tls/ca.crt\n")
			.doesNotContain("ssl.truststore.password");
		assertThatException().as("SASL without the Secret of its JAAS line")
			.isThrownBy(() -> render((template) -> template.set("kafka.securityProtocol", "SASL_SSL")))
			.withMessageContaining("kafka.sasl.existingSecret must name the Secret");
	}

	@Test
	void shouldRunByDefaultTheImageThatTheBuildMakes() throws Exception {
		Matcher image = Pattern.compile("<image.name>([^<:]+):([^<]+)</image.name>")
			.matcher(Files.readString(Path.of("pom.xml")));
		assertThat(image.find()).as("image.name in pom.xml").isTrue();
		Container container = container(render(UnaryOperator.identity()));
		assertThat(container.getImage()).isEqualTo(image.group(1) + ":" + image.group(2));
	}

	@Test
	void shouldRejectInvalidValuesWithSchema() {
		for (String[] invalid : List.of(new String[] { "replicaCount", "0" },
				new String[] { "kafka.securityProtocol", "KERBEROS" }, new String[] { "topics.partitions", "-3" },
				new String[] { "persistence.size", "lots" }, new String[] { "replicas", "3" },
				new String[] { "kafka.bootstrapServers", "" }, new String[] { "kafka.tls.truststoreType", "P12" },
				new String[] { "managementPort", "0" }, new String[] { "security.tokens", "yes" },
				new String[] { "policy", "oldest-wins" }, new String[] { "retention", "a year" },
				new String[] { "compaction.maxCompactionLag", "0s" })) {
			assertThatException().as("%s=%s", invalid[0], invalid[1])
				.isThrownBy(() -> render((template) -> template.set(invalid[0], invalid[1])))
				.withMessageContaining("schema");
		}
	}

	@Test
	void shouldSetOnlySettingsTheConfigurationMetadataDescribes() {
		ConfigurationMetadata metadata = ConfigurationMetadata.generated();
		for (List<HasMetadata> objects : List.of(render(UnaryOperator.identity()), render((template) -> template
			.withValuesFile(CHART.resolve("ci").resolve("production-values.yaml"))
			.set("security.basic.existingSecret", "vg-users")))) {
			List<String> settings = new ArrayList<>();
			for (ConfigMap map : objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast)
				.filter((map) -> map.getData().containsKey("application.yml")).toList()) {
				Map<String, Object> application = new org.yaml.snakeyaml.Yaml().load(map.getData().get("application.yml"));
				flatten("", application, settings);
			}
			assertThat(settings).filteredOn((name) -> name.startsWith("valueguard."))
				.hasSizeGreaterThan(15)
				.allSatisfy((name) -> assertThat(metadata.describes(name)).as(name).isTrue());
			Container container = only(objects, StatefulSet.class).getSpec().getTemplate().getSpec().getContainers()
				.get(0);
			assertThat(container.getEnv()).extracting(EnvVar::getName)
				.filteredOn((name) -> name.startsWith("VALUEGUARD_"))
				.isNotEmpty()
				.allSatisfy((name) -> assertThat(metadata.describesEnvironmentVariable(name)).as(name).isTrue());
		}
	}

	@SuppressWarnings("unchecked")
	private static void flatten(String prefix, Map<String, Object> yaml, List<String> names) {
		yaml.forEach((key, value) -> {
			String name = prefix.isEmpty() ? key : prefix + "." + key;
			if (value instanceof Map<?, ?> nested) {
				flatten(name, (Map<String, Object>) nested, names);
			}
			else {
				names.add(name);
			}
		});
	}

	/** Renders the chart as {@code helm template} does, with an issuer set, as a secured install must have. */
	private static List<HasMetadata> render(UnaryOperator<TemplateCommand> options) {
		return renderBare((template) -> options.apply(template.set("security.jwt.issuerUri", ISSUER)));
	}

	private static List<HasMetadata> renderBare(UnaryOperator<TemplateCommand> options) {
		String manifests = options.apply(new Helm(rendered).template().withName("vg").withNamespace("data")).call();
		List<HasMetadata> objects = new ArrayList<>();
		for (String document : manifests.split("(?m)^---\\s*$")) {
			if (document.lines().allMatch((line) -> line.isBlank() || line.startsWith("#"))) {
				continue;
			}
			Object object = KUBERNETES.unmarshal(document);
			assertThat(object).as(document).isInstanceOf(HasMetadata.class);
			List<String> unknown = new ArrayList<>();
			unknownFields(object, ((HasMetadata) object).getKind(), unknown);
			assertThat(unknown).as("fields Kubernetes does not know").isEmpty();
			objects.add((HasMetadata) object);
		}
		return objects;
	}

	/** Walks a parsed object and collects every field that did not map onto the Kubernetes model. */
	private static void unknownFields(Object node, String path, List<String> unknown) {
		if (node == null || !node.getClass().getName().startsWith("io.fabric8.")) {
			return;
		}
		for (Method getter : node.getClass().getMethods()) {
			if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
					|| !getter.getName().startsWith("get") || getter.getName().equals("getClass")) {
				continue;
			}
			Object value;
			try {
				value = getter.invoke(node);
			}
			catch (ReflectiveOperationException ex) {
				continue;
			}
			String child = path + "." + getter.getName().substring(3);
			if (getter.getName().equals("getAdditionalProperties") && value instanceof Map<?, ?> extra) {
				extra.keySet().forEach((key) -> unknown.add(path + "." + key));
			}
			else if (value instanceof Collection<?> items) {
				items.forEach((item) -> unknownFields(item, child, unknown));
			}
			else if (value instanceof Map<?, ?> entries) {
				entries.values().forEach((item) -> unknownFields(item, child, unknown));
			}
			else {
				unknownFields(value, child, unknown);
			}
		}
	}

	private static <T> T only(List<HasMetadata> objects, Class<T> type) {
		List<T> matching = objects.stream().filter(type::isInstance).map(type::cast).toList();
		assertThat(matching).as(type.getSimpleName()).hasSize(1);
		return matching.get(0);
	}

	/** The one container of the StatefulSet's pods. */
	private static Container container(List<HasMetadata> objects) {
		return only(objects, StatefulSet.class).getSpec().getTemplate().getSpec().getContainers().get(0);
	}

	/** The JVM options the StatefulSet's container starts with, rendered with {@code options}. */
	private static String javaToolOptions(UnaryOperator<TemplateCommand> options) {
		return env(container(render(options)), "JAVA_TOOL_OPTIONS").getValue();
	}

	private static EnvVar env(Container container, String name) {
		return container.getEnv()
			.stream()
			.filter((variable) -> variable.getName().equals(name))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no env " + name + " in " + Arrays.toString(
					container.getEnv().stream().map(EnvVar::getName).toArray())));
	}

}
