package main

// dockerQuestions are asked of the Docker CLI's command reference
// (docs/reference/commandline of the module github.com/docker/cli
// v29.5.3+incompatible, Apache-2.0 licence), judged by reading the pages.
// Answers are page names; a command and its alias (ps, container_ls) both
// answer.
var dockerQuestions = []question{
	{nl, "list the containers that are running right now", []string{"container_ls", "ps"}},
	{nl, "remove stopped containers and unused images to free disk space", []string{"system_prune", "container_prune", "image_prune"}},
	{nl, "how much disk space is docker using", []string{"system_df"}},
	{nl, "get a shell inside a running container", []string{"container_exec", "exec"}},
	{nl, "copy a file out of a container onto my machine", []string{"container_cp", "cp"}},
	{nl, "follow a container's output as it runs", []string{"container_logs", "logs"}},
	{nl, "limit how much memory a container can use", []string{"container_run", "run", "container_update", "update", "container_create", "create"}},
	{nl, "expose a container's web server port on the host", []string{"container_run", "run", "container_create", "create"}},
	{nl, "build an image from the Dockerfile in this folder", []string{"image_build", "build", "builder_build"}},
	{nl, "upload my image to a registry", []string{"image_push", "push"}},
	{nl, "sign in to a private registry", []string{"login"}},
	{nl, "move an image to another machine that has no internet", []string{"image_save", "save", "image_load", "load"}},
	{nl, "give an image another name before pushing it", []string{"image_tag", "tag"}},
	{nl, "see the layers an image was built from", []string{"image_history", "history"}},
	{nl, "live cpu and memory usage of my containers", []string{"container_stats", "stats"}},
	{nl, "watch what the docker daemon is doing in real time", []string{"system_events", "events"}},
	{nl, "let two containers talk to each other over their own network", []string{"network_create", "network_connect"}},
	{nl, "keep database data when the container is removed", []string{"volume_create", "container_run", "run"}},
	{nl, "turn this machine into a cluster manager", []string{"swarm_init"}},
	{nl, "add another worker machine to the cluster", []string{"swarm_join", "swarm_join-token"}},
	{nl, "run five copies of a service", []string{"service_scale", "service_update", "service_create"}},
	{nl, "undo a service update that broke things", []string{"service_rollback", "service_update"}},
	{nl, "store a database password safely for a swarm service", []string{"secret_create", "secret"}},
	{nl, "deploy my compose file to the swarm", []string{"stack_deploy"}},
	{nl, "point the cli at a docker engine on another host", []string{"context_create", "context_use", "context"}},
	{nl, "look for an official nginx image on docker hub", []string{"search"}},
	{nl, "freeze every process in a container for a while", []string{"container_pause", "pause"}},
	{nl, "which processes are running inside a container", []string{"container_top", "top"}},
	{nl, "which files changed inside a container since it started", []string{"container_diff", "diff"}},
	{nl, "save a container's changes as a new image", []string{"container_commit", "commit"}},
	{nl, "give a container a different name", []string{"container_rename", "rename"}},
	{nl, "block until a container exits and print its exit code", []string{"container_wait", "wait"}},
	{nl, "publish one image for both arm and amd64", []string{"manifest_create", "manifest", "manifest_push"}},
	{nl, "what ip address did my container get", []string{"container_inspect", "inspect", "network_inspect"}},
	{nl, "restart a container automatically when it crashes", []string{"container_run", "run", "container_update", "update"}},
	{nl, "clear the build cache", []string{"builder_prune", "system_prune"}},
	{nl, "which docker version runs on the client and the server", []string{"version"}},
	{nl, "pass environment variables when starting a container", []string{"container_run", "run", "container_create", "create", "container_exec", "exec"}},

	{kw, "docker ps", []string{"ps", "container_ls"}},
	{kw, "prune", []string{"system_prune", "container_prune", "image_prune", "volume_prune", "network_prune", "builder_prune"}},
	{kw, "swarm init", []string{"swarm_init"}},
	{kw, "docker exec", []string{"exec", "container_exec"}},
	{kw, "healthcheck", []string{"container_run", "run", "container_create", "create"}},
	{kw, "stack deploy", []string{"stack_deploy"}},
}
