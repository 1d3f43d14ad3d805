{
  description = "Retail logistics platform: product upload and delivery capacity services";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      # `nix develop`, then README's two commands: `npm install && npm start`, `npm install && npm test`.
      # PostgreSQL and Redis are here for the real-server paths (DATABASE_URL / REDIS_URL, the fault
      # suite's private servers); `npm start` needs neither.
      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [
            pkgs.nodejs_20
            pkgs.postgresql_16
            pkgs.redis
          ];
          shellHook = ''
            echo "node $(node --version), $(postgres --version), $(redis-server --version | cut -d' ' -f3)"
          '';
        };
      });
    };
}
