{{/* Chart name, overridable. */}}
{{- define "valueguard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name of the release's resources. */}}
{{- define "valueguard.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The headless Service that gives each pod a stable DNS name. */}}
{{- define "valueguard.headless" -}}
{{- printf "%s-headless" (include "valueguard.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "valueguard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "valueguard.labels" -}}
helm.sh/chart: {{ include "valueguard.chart" . }}
{{ include "valueguard.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "valueguard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "valueguard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "valueguard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "valueguard.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Kafka client settings shared by the REST producer and both Kafka Streams clients. */}}
{{- define "valueguard.kafkaClientProperties" -}}
security.protocol: {{ .Values.kafka.securityProtocol }}
{{- if hasPrefix "SASL" .Values.kafka.securityProtocol }}
{{- if not .Values.kafka.sasl.existingSecret }}
{{- fail (printf "kafka.securityProtocol is %s, so kafka.sasl.existingSecret must name the Secret whose %s key holds the sasl.jaas.config line" .Values.kafka.securityProtocol .Values.kafka.sasl.jaasConfigKey) }}
{{- end }}
sasl.mechanism: {{ .Values.kafka.sasl.mechanism }}
sasl.jaas.config: ${KAFKA_SASL_JAAS_CONFIG}
{{- end }}
{{- if .Values.kafka.tls.existingSecret }}
ssl.truststore.type: {{ .Values.kafka.tls.truststoreType }}
ssl.truststore.location: /etc/valueguard/kafka-tls/{{ .Values.kafka.tls.truststoreKey }}
{{- if ne .Values.kafka.tls.truststoreType "PEM" }}
ssl.truststore.password: ${KAFKA_TRUSTSTORE_PASSWORD}
{{- end }}
{{- if .Values.kafka.tls.keystoreKey }}
ssl.keystore.type: {{ .Values.kafka.tls.keystoreType }}
ssl.keystore.location: /etc/valueguard/kafka-tls/{{ .Values.kafka.tls.keystoreKey }}
ssl.keystore.password: ${KAFKA_KEYSTORE_PASSWORD}
{{- end }}
{{- end }}
{{- end }}

{{/*
Container resources: memory derived from the heap, RocksDB's budget and the JVM's overhead (request = limit), unless
resources.limits.memory is given.
*/}}
{{- define "valueguard.resources" -}}
{{- $resources := deepCopy (default dict .Values.resources) -}}
{{- $limits := default dict $resources.limits -}}
{{- $requests := default dict $resources.requests -}}
{{- if not $limits.memory -}}
{{- $memory := printf "%dMi" (int (add .Values.jvm.heapMiB .Values.rocksdb.blockCacheMiB .Values.jvm.overheadMiB)) -}}
{{- $_ := set $limits "memory" $memory -}}
{{- $_ := set $requests "memory" $memory -}}
{{- end -}}
{{- $_ := set $resources "limits" $limits -}}
{{- $_ := set $resources "requests" $requests -}}
{{- toYaml $resources -}}
{{- end -}}

{{/* The Secret whose internal-secret key signs the calls between instances. */}}
{{- define "valueguard.internalSecretName" -}}
{{- default (printf "%s-internal" (include "valueguard.fullname" .)) .Values.security.internalSecret.existingSecret -}}
{{- end }}

{{/* Whether the API takes any credentials. */}}
{{- define "valueguard.secured" -}}
{{- if or .Values.security.jwt.issuerUri .Values.security.jwt.jwkSetUri .Values.security.basic.existingSecret -}}
true
{{- end -}}
{{- end }}
